'use strict';

const { html, table } = require('./html');
const page = require('./page');
const { mib } = require('../topology/caps');

// The capacity command's results (capacity.json) as a table beside the seed's, and as a
// page: pure functions of that file, so a page can be written again from it.
function capacityRows(out) {
  const e = out.estimate;
  const v = out.verification;
  const seed = out.seed;
  const rows = [
    [
      'seed 002 (Go, k6, napkin math)',
      `${seed.connections} connections used ${seed.systemMB} MB`,
      `${seed.estimate}`,
      'not verified',
    ],
    [
      'this lab (Node + ws, fit)',
      e.fit
        ? `${mib(e.fit.baseBytes)} MiB + ${Math.round(e.fit.perConnectionBytes / 102.4) / 10} KiB per connection (r² ${Math.round(e.fit.r2 * 1000) / 1000})`
        : 'no fit',
      e.capacity ?? '-',
      v
        ? v.verified !== null
          ? `first failure at ${v.verified}`
          : `at least ${v.peak}: no failure, limited by ${v.limitedBy}`
        : 'not run',
    ],
  ];
  const w = out.withinReach;
  if (w) {
    rows.push([
      `this lab, checked within reach (${mib(w.limitBytes)} MiB)`,
      'the same fit',
      `${w.estimate} (for ${mib(w.limitBytes)} MiB)`,
      w.verified !== null
        ? `first failure at ${w.verified}`
        : `at least ${w.peak}: no failure, limited by ${w.limitedBy}`,
    ]);
  }
  return { head: ['who', 'memory model', `capacity for ${mib(out.limitBytes)} MiB`, 'verified'], rows };
}

function capacityPage(out) {
  const t = capacityRows(out);
  const v = out.verification;
  const w = out.withinReach;
  const points = table(
    ['connections held', 'RSS MiB', 'heap used MiB', 'samples'],
    out.estimate.points.map((pt) => [pt.connections, mib(pt.bytes), mib(pt.heapUsedBytes), pt.samples]),
  );
  return page(
    `signaling capacity for ${mib(out.limitBytes)} MiB`,
    html`<h2>Estimate and verification, beside the seed's</h2>
      ${table(t.head, t.rows)}
      <h2>Memory at each level</h2>
      ${points}
      ${v ? html`<p class="note">Verified under ${v.how}; OOM kills: ${v.oomKills ?? 'not measured'}.</p>` : ''}
      ${w ? html`<p class="note">Checked within reach under ${w.how}; OOM kills: ${w.oomKills ?? 'not measured'}.</p>` : ''}
      <p class="note">${out.notes.join('; ')}.</p>`,
    out.machine,
  );
}

module.exports = { capacityRows, capacityPage };
