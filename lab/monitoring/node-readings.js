'use strict';

const { kindOf } = require('../kinds');
const { mib } = require('../topology/caps');
const pm2Restarts = require('../runtime/pm2-restarts');
const { storeSampler } = require('../stores/stats');
const { tooManyClients } = require('../stores/logs');
const { runtimeFigures } = require('../probe/figures');

// What the per-node table adds to the sampler's figures, measured over the run's own window:
// the caps as set, what each capped node's control group accounted (the CPU it really got,
// OOM kills at its memory cap), and each caching edge's requests and hit ratio.
// start() when the load starts; stop() as soon as it ends (the window's end: what comes after,
// the last StatsD flush and the summary, is not the run's, and for a 2 s run would halve the
// CPU a node got); read() when it is over (the deployment still up).
// probe: { collector, note } of the runtime probe (lab/run/deployment.js), or none.
function nodeReadings(runtime, state, probe = { collector: null, note: null }) {
  const local = state?.runtime === 'local';
  // The caching edges and where their files are (state.paths, written by the local runtime);
  // each edge kind counts its own cache's verdicts (lab/kinds/).
  const edges = (state?.graph?.nodes || [])
    .filter((n) => n.roles.includes('edge') && state.paths?.[n.name])
    .map((n) => ({ name: n.name, cache: kindOf(n.kind).cache, paths: state.paths[n.name] }));
  const limits = Object.fromEntries(
    Object.entries(state?.caps || {}).map(([n, c]) => [
      n,
      { cpuPct: c.cpuPct, periodUs: c.periodUs ?? null, memoryMiB: c.memoryBytes !== null ? mib(c.memoryBytes) : null },
    ]),
  );
  // The data stores' own figures (--with), read from their servers each second, and the
  // connections PostgreSQL refused (its log), over the run's window.
  const stores = local ? (state.graph?.nodes || []).filter((n) => n.kind === 'postgres' || n.kind === 'redis') : [];
  const sampler = storeSampler(
    stores.map((n) => n.name),
    (name) => ({ host: state.host, port: stores.find((n) => n.name === name).port }),
  );
  const pgLog = stores.some((n) => n.kind === 'postgres')
    ? require('node:path').join(state.pm2Home, '..', 'logs', 'postgres.err.log')
    : null;
  let pgMark = 0;
  let t0 = null;
  let groups0 = {};
  let marks = {};
  let pm2Mark = 0;
  let end = null;
  // Every process pm2 supervises: its restarts are counted (0 when it never exited).
  const supervised = local && state.pm2Home ? (state.processes || []).map((p) => p.name) : [];
  const restartsNow = () => {
    if (!supervised.length) return {};
    const since = pm2Restarts.restartsSince(state.pm2Home, pm2Mark);
    return Object.fromEntries(supervised.map((n) => [n, since[n] || { restarts: 0, exitCodes: {} }]));
  };
  return {
    start() {
      t0 = Date.now();
      groups0 = local ? runtime.readCaps(state) : {};
      marks = local ? Object.fromEntries(edges.map((e) => [e.name, e.cache.mark(e.paths)])) : {};
      pm2Mark = supervised.length ? pm2Restarts.mark(state.pm2Home) : 0;
      pgMark = pgLog ? tooManyClients.mark(pgLog) : 0;
      sampler.start();
    },
    stop() {
      if (t0 !== null && end === null) {
        const storeFigures = sampler.stop();
        if (pgLog && storeFigures.postgres) storeFigures.postgres.refused = tooManyClients.since(pgLog, pgMark);
        end = {
          at: Date.now(),
          groups: local ? runtime.readCaps(state) : {},
          restarts: restartsNow(),
          stores: storeFigures,
        };
      }
    },
    read() {
      if (t0 === null) return { limits, kernel: {}, cache: {}, restarts: {}, stores: {}, runtime: null };
      const seconds = ((end ? end.at : Date.now()) - t0) / 1000;
      const groups = end ? end.groups : local ? runtime.readCaps(state) : {};
      const kernel = {};
      for (const [name, g] of Object.entries(groups)) {
        const g0 = groups0[name] || {};
        kernel[name] = {
          cpuPct:
            g.cpuUsageUs != null && g0.cpuUsageUs != null && seconds > 0
              ? ((g.cpuUsageUs - g0.cpuUsageUs) / 1e6 / seconds) * 100
              : null,
          oomKills: g.oomKills != null ? g.oomKills - (g0.oomKills || 0) : null,
          // The CFS periods of the run's window, and the share of them the node was throttled
          // in: a quota spent in bursts throttles a node whose mean CPU stays under its cap.
          periodUs: g.periodUs ?? null,
          periods: delta(g.periods, g0.periods),
          throttledPeriods: delta(g.throttledPeriods, g0.throttledPeriods),
          throttledUs: delta(g.throttledUs, g0.throttledUs),
          // The group's own memory (page cache and kernel memory charged to it included),
          // at its peak since the node started: what the limit is enforced against.
          memoryPeakBytes: g.memoryPeakBytes ?? null,
          memoryBytes: g.memoryBytes ?? null,
        };
      }
      const cache = {};
      if (local) for (const e of edges) cache[e.name] = withRatio(e.cache.since(e.paths, marks[e.name]));
      const restarts = end ? end.restarts : restartsNow();
      // The event loops, GC and heaps of the service's processes (probe/preload.js).
      const runtimeOut = probe?.collector
        ? {
            ...runtimeFigures(probe.collector.datagrams, { from: t0, to: end ? end.at : Date.now() }),
            received: probe.collector.stats(),
          }
        : null;
      return {
        limits,
        kernel,
        cache,
        restarts,
        stores: end?.stores ?? {},
        runtime: runtimeOut,
        runtimeNote: probe?.note ?? null,
      };
    },
  };
}

const delta = (a, b) => (a != null && b != null ? a - b : null);

// A cache's hit ratio: hits over the requests it decided on (not "-", nginx's word for a
// request that did not go through its cache, nor BYPASS, an answer it was not to keep).
function withRatio({ requests, verdicts }) {
  const decided = requests - (verdicts['-'] || 0) - (verdicts.BYPASS || 0);
  return { requests, verdicts, hitRatio: decided > 0 ? (verdicts.HIT || 0) / decided : null };
}

module.exports = nodeReadings;
module.exports.withRatio = withRatio;
