'use strict';

const { esc, html, trusted } = require('./html');
const { KINDS } = require('../kinds');

// A count read from a results file, as a small integer the drawing can loop over.
const count = (v, max) => Math.min(max, Math.max(1, Math.floor(Number(v)) || 1));

// A components-and-connectors drawing of a deployment: client -> nginx -> replicas (each
// with its workers) -> the two black boxes (or your service's data stores).
function deploymentSvg(d) {
  if (!d || !d.replicas) return html`<p class="note">External target: no deployment drawing.</p>`;
  const R = count(d.replicas, 64);
  const Wk = count(d.workers, 64);
  // A tier of caching edges (the cdn row) between the entry and the replicas.
  const E = d.edges ? count(d.edges, 16) : 0;
  const shift = E ? 120 : 0;
  const rowH = 46;
  const H = Math.max(150, Math.max(R, E) * rowH + 40);
  const W = 760 + shift;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" class="deployment">`,
  ];
  const box = (x, y, w, h, label, fill = '#eef4fb') =>
    out.push(
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="${fill}" stroke="#336"/><text x="${x + w / 2}" y="${y + h / 2 + 4}" font-size="12" text-anchor="middle">${esc(label)}</text>`,
    );
  const arrow = (x1, y1, x2, y2) =>
    out.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#555" marker-end="url(#a)"/>`);
  out.push(
    '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>',
  );
  const mid = H / 2;
  box(10, mid - 18, 80, 36, 'clients', '#f6f6f6');
  // The entry and the edges, labelled by their kinds (lab/kinds/); a results file from
  // before a kind existed is drawn as nginx.
  const entry = KINDS[d.balancer?.kind]?.label || 'nginx';
  const edgeLabel = KINDS[d.edgeKind]?.label || 'cache';
  box(130, mid - 22, 100, 44, entry, d.balancer?.kind === 'none' ? '#ffffff' : '#fdf2e3');
  arrow(90, mid, 130, mid);
  const rowY = (i, n) => 20 + i * ((H - 40) / n) + ((H - 40) / n - 36) / 2;
  // What the replicas call: the lab's black boxes, or your service's stores (--with).
  const STORE_LABELS = { postgres: 'postgres (PostgreSQL)', redis: 'redis (Redis)' };
  const back = d.app ? (d.stores || []).map((n) => STORE_LABELS[n] || n) : ['bbox1', 'bbox2'];
  const backY = (k) => (back.length === 1 ? mid : H * (0.3 + (0.4 * k) / Math.max(1, back.length - 1)));
  for (let e = 0; e < E; e++) {
    const y = rowY(e, E);
    box(260, y, 104, 36, `edge-${e + 1} (${edgeLabel})`, '#fdf2e3');
    arrow(230, mid, 260, y + 18);
    for (let i = 0; i < R; i++) arrow(364, y + 18, 290 + shift, rowY(i, R) + 18);
  }
  for (let i = 0; i < R; i++) {
    const y = rowY(i, R);
    const x = 290 + shift;
    box(x, y, 120 + Wk * 22, 36, '');
    out.push(`<text x="${x + 10}" y="${y + 22}" font-size="12">replica-${i + 1}</text>`);
    for (let w = 0; w < Wk; w++)
      out.push(
        `<circle cx="${x + 92 + w * 22}" cy="${y + 18}" r="8" fill="#cfe3f7" stroke="#336"/><text x="${x + 92 + w * 22}" y="${y + 22}" font-size="9" text-anchor="middle">${w + 1}</text>`,
      );
    if (!E) arrow(230, mid, x, y + 18);
    back.forEach((_, k) => arrow(x + 120 + Wk * 22, y + 18, 590 + shift, backY(k)));
  }
  back.forEach((label, k) => box(590 + shift, backY(k) - 18, 150, 36, label, '#eaf7ea'));
  out.push(
    `<text x="10" y="${H - 6}" font-size="10" fill="#666">${esc(d.label || d.name)}: ${E ? `${E} caching edge(s), ` : ''}${R} replica(s) x ${Wk} worker(s); circles are node:cluster workers</text>`,
  );
  out.push('</svg>');
  // Numbers computed here and labels through esc() only.
  return trusted(out.join('\n'));
}

module.exports = deploymentSvg;
