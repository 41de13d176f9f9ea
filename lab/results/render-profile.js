'use strict';

// The profile of a run (--profile: summary.profile, and the stores' statements) as terminal
// lines: each node's hottest functions by self time, the database's heaviest statements, the
// cache's commands. Pure: lines from the summary.
const TOP = 5;
const pct = (v) => `${(Math.round(v * 1000) / 10).toFixed(1)}%`;

// A function's place, short: its file's last two parts and line, or its package.
function placeOf(f) {
  if (!f.file) return f.package;
  const short = f.file.split(/[\\/]/).slice(-2).join('/');
  return `${short}${f.line ? `:${f.line}` : ''}${f.package !== 'your code' ? ` (${f.package})` : ''}`;
}

function profileLines(s) {
  const lines = [];
  const p = s.profile;
  if (p) {
    const w = p.window;
    const nodes = Object.entries(p.nodes || {});
    lines.push(
      w
        ? `Where the CPU went (--profile, ${w.fromS}-${w.toS} s of the load; shares of each node's busy samples, by self time):`
        : 'Where the CPU went (--profile):',
    );
    // (A service whose processes are not Node's sends no profile: said, not an empty heading.)
    if (!nodes.length && !(p.notes || []).length)
      lines.push(
        "  no process of the service sent a profile: the profiler runs in Node processes, through the runtime probe (a service that is not Node's has none)",
      );
    for (const [node, n] of nodes) {
      const procs = n.processes.length > 1 ? `, ${n.processes.length} processes merged` : '';
      lines.push(`  ${node} (busy ${n.busyShare === null ? '-' : pct(n.busyShare)} of its samples${procs}; ${n.file})`);
      for (const f of n.top.slice(0, TOP)) lines.push(`    ${pct(f.selfShare).padStart(6)}  ${f.name}  ${placeOf(f)}`);
    }
    for (const note of p.notes || []) lines.push(`  ${note}`);
  }
  const pg = s.stores?.postgres;
  if (pg?.statements?.length) {
    lines.push('PostgreSQL, its heaviest statements (pg_stat_statements, by total time):');
    for (const q of pg.statements.slice(0, TOP)) {
      const text = q.query.length > 90 ? `${q.query.slice(0, 87)}...` : q.query;
      lines.push(`  ${pct(q.share).padStart(6)}  ${String(q.calls).padStart(7)} calls  ${String(q.meanMs).padStart(8)} ms each  ${text}`);
    }
  } else if (pg?.statementsError) lines.push(`PostgreSQL statements: ${pg.statementsError}`);
  const rd = s.stores?.redis;
  if (rd?.commands?.length) {
    lines.push('Redis, its commands (commandstats, by total time):');
    for (const c of rd.commands.slice(0, TOP))
      lines.push(`  ${pct(c.share).padStart(6)}  ${String(c.calls).padStart(7)} calls  ${String(c.usecPerCall).padStart(8)} µs each  ${c.command.toUpperCase()}`);
  }
  return lines;
}

// Several runs' profiles side by side (compare, the studies): for each node of theirs, the
// functions at the top of any of them by self time, each run's share, and (two runs) the
// change, "58% -> 12%": the check a user runs after a fix; the same for the database's
// statements. -> [{ node, what, where, shares: [share or null], change }], or null when fewer
// than two runs were profiled.
function comparedRows(summaries) {
  if (summaries.filter((s) => s.profile?.nodes || s.stores?.postgres?.statements).length < 2) return null;
  const two = summaries.length === 2;
  const change = (a, b) => (a === null || b === null ? null : `${pct(a)} -> ${pct(b)}`);
  const rows = [];
  const keyOf = (f) => `${f.name} ${f.file}:${f.line}`;
  const nodes = [...new Set(summaries.flatMap((s) => Object.keys(s.profile?.nodes || {})))];
  for (const node of nodes) {
    const fns = new Map();
    for (const s of summaries) for (const f of (s.profile?.nodes?.[node]?.top || []).slice(0, TOP)) fns.set(keyOf(f), f);
    for (const [key, f] of fns) {
      const shares = summaries.map((s) => {
        const n = s.profile?.nodes?.[node];
        return n ? (n.top.find((x) => keyOf(x) === key)?.selfShare ?? 0) : null;
      });
      rows.push({ node, what: f.name, where: f.file ? placeOf(f) : f.package, shares, change: two ? change(...shares) : null });
    }
  }
  const queries = new Set(summaries.flatMap((s) => (s.stores?.postgres?.statements || []).slice(0, TOP).map((q) => q.query)));
  for (const query of queries) {
    const shares = summaries.map((s) => {
      const list = s.stores?.postgres?.statements;
      return list ? (list.find((q) => q.query === query)?.share ?? 0) : null;
    });
    const what = query.length > 100 ? `${query.slice(0, 97)}...` : query;
    rows.push({ node: 'postgres', what, where: 'statement', shares, change: two ? change(...shares) : null });
  }
  return rows.length ? rows : null;
}

// The same as terminal lines.
function comparedLines(summaries, labels) {
  const rows = comparedRows(summaries);
  if (!rows) return [];
  return [
    `Where the time went, side by side (--profile; ${labels.join(' vs ')}):`,
    ...rows.map(
      (x) =>
        `  ${x.node}  ${x.what}  ${x.where}: ${x.change ?? x.shares.map((v) => (v === null ? '-' : pct(v))).join(', ')}`,
    ),
  ];
}

module.exports = { profileLines, placeOf, comparedRows, comparedLines };
