'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { html, table } = require('./html');
const { treeOf, flameData } = require('../profile/cpuprofile');
const { placeOf, comparedRows } = require('../results/render-profile');

// A profiled run's section of its report (--profile): per node, its hottest functions by self
// and by total time, and a flame graph of its merged profile (zoom by clicking, a search box),
// drawn by d3-flame-graph (./flame-assets.js); the database's heaviest statements and the
// cache's commands. Read from the run's folder: summary.json and profiles/<node>.cpuprofile.
const pct = (v) => `${(Math.round(v * 1000) / 10).toFixed(1)}%`;

function functionsTable(list, key) {
  return table(
    ['function', 'where', 'package', key === 'self' ? 'self' : 'total', key === 'self' ? 'total' : 'self'],
    list.map((f) => [
      f.name,
      f.file ? placeOf(f) : '-',
      f.package,
      pct(key === 'self' ? f.selfShare : f.totalShare),
      pct(key === 'self' ? f.totalShare : f.selfShare),
    ]),
    'profile',
  );
}

// The node's merged profile as the flame graph's data, or null when its file is not there.
function flameOf(dir, n) {
  try {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, n.file), 'utf8'));
    return flameData(treeOf(profile));
  } catch {
    return null;
  }
}

function nodeSection(dir, node, n) {
  const data = flameOf(dir, n);
  const procs = n.processes.length > 1 ? `, its ${n.processes.length} processes merged` : '';
  return html`<h3>${node}</h3>
    <p class="note">
      ${n.samples} samples, ${n.busyShare === null ? '-' : pct(n.busyShare)} of them busy${procs}; shares are of the busy
      samples. The profile: <code>${n.file}</code> (Chrome DevTools and speedscope open it).
    </p>
    ${functionsTable(n.top, 'self')}
    ${
      data
        ? html`<figure class="flame" data-flame="${JSON.stringify(data)}">
          <figcaption>${node}: where its CPU went (wider is more; click a frame to zoom, the bottom one to zoom out)</figcaption>
          <input type="search" placeholder="search a function or file" />
          <div class="flame-details"></div>
          <div class="flame-chart"></div>
        </figure>`
        : ''
    }
    <details>
      <summary>By total time (the function and what it called)</summary>
      ${functionsTable(n.topTotal, 'total')}
    </details>`;
}

function statementsSection(s) {
  const pg = s.stores?.postgres;
  const rd = s.stores?.redis;
  const parts = [];
  if (pg?.statements?.length) {
    parts.push(
      html`<h3>PostgreSQL: its heaviest statements</h3>
        ${table(
          ['statement (normalized)', 'share of its time', 'calls', 'mean ms', 'total ms', 'rows'],
          pg.statements.map((q) => [q.query, pct(q.share), q.calls, q.meanMs, q.totalMs, q.rows]),
          'statements',
        )}`,
    );
  } else if (pg?.statementsError) parts.push(html`<p class="note">PostgreSQL statements: ${pg.statementsError}</p>`);
  if (rd?.commands?.length) {
    parts.push(
      html`<h3>Redis: its commands</h3>
        ${table(
          ['command', 'share of its time', 'calls', 'µs a call', 'total ms'],
          rd.commands.map((c) => [c.command.toUpperCase(), pct(c.share), c.calls, c.usecPerCall, c.totalMs]),
          'commands',
        )}`,
    );
  }
  return parts;
}

function profileSection(run) {
  const s = run.summary;
  const p = s.profile;
  const stmts = statementsSection(s);
  if (!p && !stmts.length) return '';
  const nodes = Object.entries(p?.nodes || {});
  return html`<h2>Where the time went (--profile)</h2>
    ${
      p
        ? html`<p class="note">
          V8's sampling profiler in every Node process of the service, every ${p.intervalUs} µs, from ${p.window.fromS} s to
          ${p.window.toS} s of the load (${p.window.rule}).
        </p>`
        : ''
    }
    ${(p?.notes || []).map((n) => html`<p class="warn">${n}</p>`)} ${nodes.map(([node, n]) => nodeSection(run.dir, node, n))}
    ${stmts}`;
}

// Several runs' profiles side by side (compare, the studies): for each node of theirs, the
// functions at the top of any of them by self time, each run's share, and (two runs) the
// change, "computeDiscount 58% -> 12%", the check a user runs after a fix; the same for the
// database's statements.
function profileCompared(runs, labelOf) {
  const rows = comparedRows(runs.map((r) => r.summary));
  if (!rows) return '';
  const two = runs.length === 2;
  const cells = (x) => [
    x.node,
    x.what,
    x.where,
    ...x.shares.map((v) => (v === null ? '-' : pct(v))),
    ...(two ? [x.change ?? '-'] : []),
  ];
  return html`<h2>Where the time went, side by side (--profile)</h2>
    ${table(['node', 'function or statement', 'where', ...runs.map(labelOf), ...(two ? ['change'] : [])], rows.map(cells), 'profile-compare')}
    <p class="note">
      Shares of each node's busy samples by self time (of the database's time, for its statements); 0% where the
      function was not among a run's top.
    </p>`;
}

module.exports = { profileSection, profileCompared };
