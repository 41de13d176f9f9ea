'use strict';

// Line charts as inline SVG strings: self-contained, no script, no CDN, readable offline
// from file://. A pure function of its arguments.
const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

const { esc, trusted } = require('./html');

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

const tickText = (v) => (Math.abs(v) >= 1000 ? `${Math.round(v / 100) / 10}k` : String(Math.round(v * 100) / 100));

// series: [{ name, points: [[x, y], ...], axis: 'left' | 'right', dashed, color, dots, scatter }]
// (scatter: dots only, no line: points that are not a sequence, like one dot per second)
// options: { title, xLabel, yLabel, y2Label, xMax, yMax, y2Max, markers: [{ x, label }], width, height }
function lineChart(series, o = {}) {
  const W = o.width || 760;
  const H = o.height || 260;
  const m = { l: 56, r: o.y2Label ? 56 : 16, t: 28, b: 62 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const all = (axis) => series.filter((s) => (s.axis || 'left') === axis).flatMap((s) => s.points);
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const xMin = o.xMin ?? (xs.length ? Math.min(...xs) : 0);
  const xMax = o.xMax ?? (xs.length ? Math.max(...xs) : 1);
  const yMax = o.yMax ?? niceMax(Math.max(0, ...all('left').map((p) => p[1])));
  const y2Max = o.y2Max ?? niceMax(Math.max(0, ...all('right').map((p) => p[1])));
  const sx = (x) => m.l + ((x - xMin) / (xMax - xMin || 1)) * pw;
  const sy = (y, axis) => m.t + ph - (y / ((axis === 'right' ? y2Max : yMax) || 1)) * ph;

  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" class="chart" role="img">`,
  ];
  if (o.title) out.push(`<text x="${m.l}" y="16" font-size="13" font-weight="bold">${esc(o.title)}</text>`);
  for (let i = 0; i <= 4; i++) {
    const y = m.t + (ph * i) / 4;
    out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${m.l - 4}" y="${y + 4}" font-size="10" text-anchor="end">${tickText(yMax * (1 - i / 4))}</text>`,
    );
    if (o.y2Label)
      out.push(`<text x="${m.l + pw + 4}" y="${y + 4}" font-size="10">${tickText(y2Max * (1 - i / 4))}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const x = xMin + ((xMax - xMin) * i) / 5;
    out.push(`<text x="${sx(x)}" y="${m.t + ph + 14}" font-size="10" text-anchor="middle">${tickText(x)}</text>`);
  }
  out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${m.t + ph}" y2="${m.t + ph}" stroke="#333"/>`);
  if (o.xLabel)
    out.push(
      `<text x="${m.l + pw / 2}" y="${m.t + ph + 30}" font-size="11" text-anchor="middle">${esc(o.xLabel)}</text>`,
    );
  if (o.yLabel)
    out.push(
      `<text transform="translate(12 ${m.t + ph / 2}) rotate(-90)" font-size="11" text-anchor="middle">${esc(o.yLabel)}</text>`,
    );
  if (o.y2Label)
    out.push(
      `<text transform="translate(${W - 8} ${m.t + ph / 2}) rotate(90)" font-size="11" text-anchor="middle">${esc(o.y2Label)}</text>`,
    );
  for (const mk of o.markers || []) {
    const x = sx(mk.x);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${m.t}" y2="${m.t + ph}" stroke="#999" stroke-dasharray="3 3" class="marker"/>`,
    );
    out.push(`<text x="${x + 3}" y="${m.t + 10}" font-size="9" fill="#666">${esc(mk.label)}</text>`);
  }
  series.forEach((s, i) => {
    const color = s.color || COLORS[i % COLORS.length];
    const pts = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
    if (!pts.length) return;
    const d = pts.map((p, j) => `${j ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${sy(p[1], s.axis).toFixed(1)}`).join('');
    if (!s.scatter)
      out.push(
        `<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="6 4"' : ''} class="series" data-name="${esc(s.name)}" data-points="${pts.length}"/>`,
      );
    // A scatter's dots are its series: one group, named like a line would be.
    if (s.scatter) out.push(`<g class="series" data-name="${esc(s.name)}" data-points="${pts.length}">`);
    if (s.dots || s.scatter)
      for (const p of pts)
        out.push(`<circle cx="${sx(p[0]).toFixed(1)}" cy="${sy(p[1], s.axis).toFixed(1)}" r="2.5" fill="${color}"/>`);
    if (s.scatter) out.push('</g>');
  });
  // Legend
  let lx = m.l;
  series.forEach((s, i) => {
    const color = s.color || COLORS[i % COLORS.length];
    const label = `${s.name}${o.y2Label ? (s.axis === 'right' ? ' (right)' : ' (left)') : ''}`;
    out.push(`<rect x="${lx}" y="${H - 10}" width="10" height="3" fill="${color}"/>`);
    out.push(`<text x="${lx + 13}" y="${H - 6}" font-size="9">${esc(label)}</text>`);
    lx += 20 + label.length * 5.2;
  });
  out.push('</svg>');
  // Every value above is a number computed here or a label passed through esc().
  return trusted(out.join('\n'));
}

module.exports = { lineChart, esc, COLORS };
