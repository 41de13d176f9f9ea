'use strict';

const { num, summaryOf, byReason } = require('./kit');
const { lineChart } = require('../report/svg-chart');
const { kindOf } = require('../kinds');

// Seed 004: 1, 3 and 5 CPU-limited HTTP servers behind a self-written balancer (stage 1) and
// behind swarm's routing mesh (stage 2), 1 to 20 client threads sending requests; the mean
// response time against the threads, one line per (balancer, servers).
// --balancers compares other kinds of lab/kinds/ (the seed's figures stay beside node and
// mesh, its two stages).
const DEFAULT_KINDS = ['node', 'nginx', 'mesh'];
const LABELS = {
  node: "the lab's node balancer (seed: stage 1, self-written)",
  mesh: "swarm's routing mesh (seed: stage 2)",
};
const balancerRow = (name) => {
  const k = kindOf(name);
  return {
    kind: name,
    label: LABELS[name] || k.what,
    short: name,
    engine: k.runtimes.includes('local') ? 'local' : k.runtimes[0],
    runtimes: k.runtimes,
  };
};
const BALANCERS = DEFAULT_KINDS.map(balancerRow);
const balancersOfPlan = (plan) => [...new Set(plan.map((s) => s.balancer))].map(balancerRow);
const SERVERS = [1, 3, 5];
// Each server is capped at this share of one core and answers GET /work?n=100 (3-5 ms of an
// uncapped core here): the cap, not the 2-core machine, is what one server can give.
const SERVER_CAP = '20%';
const LEVEL_S = 10;

// Mean response time at 20 threads, ms (the seed's text).
const SEED_AT_20 = {
  node: { 1: 82.8, 3: 47.6, 5: 44.3 },
  mesh: { 1: 95.7, 3: 41, 5: 34.4 },
};

// All of 1..20 at full scale; a quick study keeps the ends and a few between.
function levelsFor(scale) {
  if (scale >= 0.5) return Array.from({ length: 20 }, (_, i) => i + 1);
  if (scale >= 0.2) return [1, 2, 4, 6, 8, 10, 12, 15, 20];
  return [1, 5, 10, 15, 20];
}

const groupId = (b, n) => `bal-${b}-${n}`;
const stepId = (b, n, c) => `${groupId(b, n)}-c${String(c).padStart(2, '0')}`;
const DEPLOY_S = 10;
const RUN_OVERHEAD_S = 4;

// Every (balancer, servers) is deployed once, then loaded level after level through
// --target, then taken down: the steps of one group share its deployment.
function plan({ scale, engine, balancers }) {
  const levelS = Math.max(2, Math.round(LEVEL_S * scale));
  const levels = levelsFor(scale);
  const steps = [];
  for (const b of (balancers || DEFAULT_KINDS).map(balancerRow)) {
    // Where it runs: --engine when the kind can run there, else its own (the mesh: swarm).
    const eng = engine && b.runtimes.includes(engine) ? engine : b.engine;
    for (const n of SERVERS) {
      const group = {
        id: groupId(b.kind, n),
        deploy: [
          'deploy',
          'replicated',
          '--replicas',
          String(n),
          '--balancer',
          b.kind,
          '--engine',
          eng,
          '--cap',
          `replica=${SERVER_CAP}`,
        ],
      };
      levels.forEach((c, i) =>
        steps.push({
          id: stepId(b.kind, n, c),
          kind: 'scenario',
          balancer: b.kind,
          what: `work through ${b.short} over ${n} server(s), ${c} client(s) for ${levelS} s`,
          group,
          args: [
            'scenario',
            'work',
            'load',
            'replicated',
            '--target',
            '{target}',
            '--generator',
            'closed',
            '--connections',
            String(c),
            '--duration',
            `${levelS}s`,
            '--no-statsd',
          ],
          expectedS: levelS + RUN_OVERHEAD_S + (i === 0 ? DEPLOY_S : 0),
        }),
      );
    }
  }
  return steps;
}

function curve(studyDir, b, n, levels) {
  const pts = [];
  for (const c of levels) {
    const s = summaryOf(studyDir, stepId(b, n, c));
    if (s && s.responseTimeMs)
      pts.push({
        c,
        mean: s.responseTimeMs.mean,
        p99: s.responseTimeMs.p99,
        rps: s.meanResponseRate,
        errors: Object.values(s.errors || {}).reduce((a, x) => a + x, 0),
        verdict: s.saturation && s.saturation.saturated ? s.saturation.verdict : null,
      });
  }
  return pts;
}

// How much lower the mean is with 5 servers than with 3, in %.
const gain35 = (means) => num((1 - means[5] / means[3]) * 100, 0);

function sections({ studyDir, scale, failures, plan: steps }) {
  const levels = levelsFor(scale);
  const balancers = steps ? balancersOfPlan(steps) : BALANCERS;
  const series = [];
  const at20 = [];
  const facts = [];
  const notRun = [];
  // Each line's points, read once: [{ b, n, pts }] in the order of the table.
  const lines = balancers.flatMap((b) => SERVERS.map((n) => ({ b, n, pts: curve(studyDir, b.kind, n, levels) })));
  const at = (b, n, c) => lines.find((l) => l.b === b && l.n === n).pts.find((p) => p.c === c);
  for (const { b, n, pts } of lines) {
    const why = failures[groupId(b.kind, n)];
    if (!pts.length) {
      notRun.push([`${b.short} x ${n}`, why ? why.replace(/^not run: /, '') : 'no results yet']);
    } else {
      series.push({
        name: `${b.short}, ${n} server${n > 1 ? 's' : ''}`,
        points: pts.map((p) => [p.c, p.mean]),
        dashed: b.kind === 'nginx',
        dots: true,
      });
    }
    const last = at(b, n, 20);
    const seed = (SEED_AT_20[b.kind] || {})[n];
    at20.push([
      b.short,
      n,
      last ? num(last.mean, 1) : why ? 'not run' : '-',
      last ? num(last.p99, 1) : '-',
      last ? num(last.rps, 1) : '-',
      last ? num(last.errors) : '-',
      seed !== undefined ? num(seed, 1) : '-',
    ]);
    if (pts.length > 1) {
      const first = pts[0];
      const top = pts[pts.length - 1];
      facts.push(
        `${b.short} over ${n}: mean ${num(first.mean, 1)} ms at ${first.c} client(s), ${num(top.mean, 1)} ms at ${top.c} (${num(top.mean / first.mean, 1)}x).`,
      );
    }
  }
  // The seed's finding, checked on our data: more servers, lower means at 20 clients?
  for (const b of balancers) {
    const m = SERVERS.map((n) => at(b, n, 20));
    if (m.every(Boolean)) {
      const order = m[0].mean > m[1].mean && m[1].mean > m[2].mean;
      facts.push(
        `${b.short} at 20 clients: 1 / 3 / 5 servers ${m.map((p) => num(p.mean, 1)).join(' / ')} ms, ${order ? 'falling as servers are added, as in the seed' : 'not falling at every step'}; 3 -> 5 servers gains ${num((1 - m[2].mean / m[1].mean) * 100, 0)}% (seed: stage 1 ${gain35(SEED_AT_20.node)}%, stage 2 ${gain35(SEED_AT_20.mesh)}%).`,
      );
    }
  }
  for (const { b, n, pts } of lines) {
    for (const p of pts.filter((x) => x.verdict)) facts.push(`${b.short} over ${n} at ${p.c} client(s): ${p.verdict}.`);
  }
  // One line for the rows that were not run for one same reason.
  for (const [why, rows] of byReason(notRun)) facts.push(`not run: ${rows.join(', ')}: ${why}.`);
  const chart = series.length
    ? lineChart(series, {
        title: 'Mean response time against concurrent clients',
        xLabel: 'clients (closed loop)',
        yLabel: 'mean ms',
        xMax: 20,
      })
    : null;
  return [
    {
      title: 'Mean response time against clients, one line per (balancer, servers)',
      facts,
      charts: chart ? [chart] : [],
      tables: [
        {
          caption: 'At 20 clients, beside the seed',
          head: ['balancer', 'servers', 'mean ms', 'p99 ms', 'r/s', 'failed', 'seed mean ms'],
          rows: at20,
          note: `Each server capped at ${SERVER_CAP} of a core and answering GET /work?n=100; the seed's "node" figures are its stage 1 (a self-written balancer), its "mesh" figures stage 2 (swarm).`,
        },
      ],
    },
  ];
}

module.exports = {
  name: 'balancers',
  seed: '004',
  title: 'A small balancer against nginx and a routing mesh, reproduced (seed 004)',
  what: '1, 3 and 5 CPU-capped servers behind the node balancer, nginx and the swarm mesh, 1 to 20 clients',
  differs: [
    'one 2-core machine: the clients, the balancer and every server share it; the seed spread them over VMs',
    `each server is capped at ${SERVER_CAP} of a core by a control group (the seed limited its containers' CPU too, by how much it does not say)`,
    "the lab's node balancer (balancer/, round-robin with keep-alive) stands in for the seed's own; nginx is added as a reference",
    'the routing mesh needs a swarm whose kernel has IPVS; where there is none, its rows say why they were not run',
    "clients are a closed loop of N connections, each sending its next request when answered, like the seed's threads",
  ],
  plan,
  sections,
  SEED_AT_20,
  SERVERS,
  BALANCERS,
  DEFAULT_KINDS,
  levelsFor,
  groupId,
  stepId,
};
