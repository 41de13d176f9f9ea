'use strict';

// The autoscaler's metric per replica over a window [fromMs, toMs), as Kubernetes' metrics
// pipeline averages a pod's usage over its last scrape window. Pure: from the run's samples.
//   cpu:  the node sampler's CPU of the replica's process tree (lab/monitoring/sampler.js,
//         100 = one core), over the cores it may use (its cap, else one a worker), in %;
//   loop: the runtime probe's event-loop utilization of its serving processes (busy time
//         over their whole time; a cluster primary left out), in %;
//   rps:  the HTTP requests its processes began, a second (the runtime probe's).
// A replica without a figure in the window has null (the rule counts it as Kubernetes does).

const inWindow = (at, fromMs, toMs) => at >= fromMs && at < toMs;
const r2 = (v) => Math.round(v * 100) / 100;

// samples: [{ at, nodes: { name: { cpuPct } } }]; cores: name -> cores it may use.
function cpuOf(samples, names, fromMs, toMs, cores) {
  const out = {};
  for (const name of names) {
    const values = [];
    for (let i = samples.length - 1; i >= 0 && samples[i].at >= fromMs; i--) {
      const n = samples[i].nodes?.[name];
      if (n && inWindow(samples[i].at, fromMs, toMs)) values.push(n.cpuPct);
    }
    out[name] = values.length ? r2(values.reduce((a, b) => a + b, 0) / values.length / cores(name)) : null;
  }
  return out;
}

// datagrams: the probe's ({ node, role, at, elu: [active, idle], r, ms }), in arrival order.
function probeOf(datagrams, names, fromMs, toMs) {
  const by = Object.fromEntries(names.map((n) => [n, { active: 0, total: 0, requests: 0, seen: false }]));
  for (let i = datagrams.length - 1; i >= 0 && datagrams[i].at >= fromMs; i--) {
    const d = datagrams[i];
    const b = by[d.node];
    if (!b || !inWindow(d.at, fromMs, toMs)) continue;
    b.seen = true;
    b.requests += d.r || 0;
    if (d.role === 'primary') continue;
    b.active += d.elu?.[0] || 0;
    b.total += (d.elu?.[0] || 0) + (d.elu?.[1] || 0);
  }
  return by;
}

function loopOf(datagrams, names, fromMs, toMs) {
  const by = probeOf(datagrams, names, fromMs, toMs);
  return Object.fromEntries(names.map((n) => [n, by[n].total > 0 ? r2((by[n].active / by[n].total) * 100) : null]));
}

function rpsOf(datagrams, names, fromMs, toMs) {
  const by = probeOf(datagrams, names, fromMs, toMs);
  const s = (toMs - fromMs) / 1000;
  return Object.fromEntries(names.map((n) => [n, by[n].seen ? r2(by[n].requests / s) : null]));
}

// -> { name: value | null } for the metric.
function metricOf(metric, { samples = [], datagrams = [], names, fromMs, toMs, cores = () => 1 }) {
  if (metric === 'cpu') return cpuOf(samples, names, fromMs, toMs, cores);
  if (metric === 'loop') return loopOf(datagrams, names, fromMs, toMs);
  if (metric === 'rps') return rpsOf(datagrams, names, fromMs, toMs);
  throw new Error(`unknown metric ${metric}`);
}

module.exports = { metricOf, cpuOf, loopOf, rpsOf };
