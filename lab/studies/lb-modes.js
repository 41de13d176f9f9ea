'use strict';

const { num, ratio, summaryOf } = require('./kit');
const { kindOf } = require('../kinds');

// Seed 001: a backend answering after 200 ms, reached without a balancer (NodePort), through
// nginx at L4 (TCP) and through nginx at L7 (HTTP), balancer and backend each capped at one
// core and 1 GiB; ab with keep-alive, 100,000 requests at high concurrency. --balancers
// compares other kinds of lab/kinds/ (each beside the seed's row of its layer).
const DEFAULT_KINDS = ['none', 'nginx-l4', 'nginx'];
// The seed's row for each layer, by the kind that stands for it in SEED below.
const SEED_TYPE = { none: 'NodePort', 4: 'LB - TCP', 7: 'LB - HTTP' };
const SEED_KIND = { none: 'none', 4: 'nginx-l4', 7: 'nginx' };
const LABELS = { none: 'none (NodePort)', 'nginx-l4': 'nginx L4 (TCP)', nginx: 'nginx L7 (HTTP)' };
function kindRow(name) {
  const k = kindOf(name);
  const layer = k.layer === null ? 'none' : k.layer;
  return {
    kind: name,
    label: LABELS[name] || k.what,
    seedType: SEED_TYPE[layer],
    seedKind: SEED_KIND[layer],
    node: k.node,
  };
}
const KINDS = DEFAULT_KINDS.map(kindRow);
// The kinds a plan compares, in its order.
const kindsOfPlan = (plan) => [...new Set(plan.map((s) => s.balancer))].map(kindRow);
const CONCURRENCY = [200, 1000, 2000];
const REQUESTS = 100000;
const CAP = '100%,1G';

// The seed's ab figures. Its second table is headed "200 Concurrency", but the ab outputs
// that match its rows say "Concurrency Level: 2000": they are filed under 2000 here.
// CPU in millicores, memory in MiB, times in ms.
const SEED = {
  1000: {
    none: { rps: 3747.75, meanMs: 266.826, balancer: null, backend: { cpuM: 900, memMiB: 67 }, p50: 262, p99: 380 },
    'nginx-l4': {
      rps: 3867.6,
      meanMs: 258.558,
      balancer: { cpuM: 680, memMiB: 130 },
      backend: { cpuM: 950, memMiB: 98 },
      p50: 257,
      p99: 345,
    },
    nginx: {
      rps: 1558.15,
      meanMs: 641.787,
      balancer: { cpuM: 854, memMiB: 130 },
      backend: { cpuM: 890, memMiB: 79 },
      p50: 582,
      p99: 1578,
    },
  },
  2000: {
    none: { rps: 3463.86, meanMs: 577.391, balancer: null, backend: { cpuM: 900, memMiB: 67 }, p50: 401, p99: 1669 },
    'nginx-l4': {
      rps: 3153.1,
      meanMs: 634.296,
      balancer: { cpuM: 544, memMiB: 135 },
      backend: { cpuM: 977, memMiB: 88 },
      p50: 473,
      p99: 2071,
    },
    nginx: {
      rps: 1525.92,
      meanMs: 1310.685,
      balancer: { cpuM: 887, memMiB: 136 },
      backend: { cpuM: 826, memMiB: 64 },
      p50: 956,
      p99: 5399,
    },
  },
};

const RUN_OVERHEAD_S = 15;
const id = (kind, c) => `lb-${kind}-c${c}`;

function plan({ scale, balancers }) {
  const requests = Math.max(1000, Math.round(REQUESTS * scale));
  const kinds = (balancers || DEFAULT_KINDS).map(kindRow);
  const steps = [];
  for (const c of CONCURRENCY) {
    for (const k of kinds) {
      // 200 ms each, `c` at a time: the fastest the backend allows, plus what the machine adds.
      const floorS = (requests / c) * 0.2;
      steps.push({
        id: id(k.kind, c),
        kind: 'scenario',
        balancer: k.kind,
        what: `sleep 200 ms through ${k.label}, ${requests} requests at concurrency ${c}`,
        args: [
          'scenario',
          'sleep',
          'load',
          'single',
          '--balancer',
          k.kind,
          '--generator',
          'closed',
          '--keepalive',
          '--connections',
          String(c),
          '--requests',
          String(requests),
          '--no-graphite',
          '--cap',
          `replica=${CAP}`,
          ...(k.kind === 'none' ? [] : ['--cap', `balancer=${CAP}`]),
        ],
        expectedS: Math.round(Math.max(floorS, requests / 2500) + RUN_OVERHEAD_S),
      });
    }
  }
  return steps;
}

const nodeRow = (s, pred) => ((s.nodes && s.nodes.rows) || []).find(pred) || null;
const isBalancerOf = (k) => (r) => r.node === k.node;
const isBackend = (r) => /^replica/.test(r.node);
const cpuMem = (r) => (r ? `${num(r.cpuPctMean * 10)}m / ${num(r.memMiBMax)} MiB` : '-');
const seedCpuMem = (x) => (x ? `${x.cpuM}m / ${x.memMiB} MiB` : '-');

function ours(studyDir, k, c) {
  const s = summaryOf(studyDir, id(k.kind, c));
  if (!s) return null;
  const t = s.responseTimeMs || {};
  return {
    rps: s.meanResponseRate,
    meanMs: t.mean,
    p50: t.p50,
    p99: t.p99,
    errors: Object.values(s.errors || {}).reduce((a, b) => a + b, 0),
    errorCodes: Object.entries(s.errors || {})
      .map(([code, n]) => `${n} ${code}`)
      .join(', '),
    balancer: s.nodes && k.node ? nodeRow(s, isBalancerOf(k)) : null,
    backend: s.nodes ? nodeRow(s, isBackend) : null,
    saturation: s.saturation,
    generatorCpu: s.generator ? s.generator.cpuPctMean : null,
  };
}

function sections({ studyDir, plan: steps }) {
  const kinds = steps ? kindsOfPlan(steps) : KINDS;
  const out = [];
  const facts = [];
  for (const c of CONCURRENCY) {
    const rows = [];
    const got = {};
    const seedShown = new Set();
    for (const k of kinds) {
      const o = ours(studyDir, k, c);
      got[k.kind] = o;
      rows.push([
        k.seedType,
        'this lab',
        k.kind === 'none' ? '-' : cpuMem(o && o.balancer),
        cpuMem(o && o.backend),
        num(o && o.rps, 1),
        num(o && o.meanMs, 1),
        num(o && o.p50, 1),
        num(o && o.p99, 1),
        num(o && o.errors),
        o && o.generatorCpu !== null ? `${num(o.generatorCpu * 10)}m` : '-',
      ]);
      // The seed's row of this kind's layer, once, after our first kind of that layer.
      const sd = !seedShown.has(k.seedType) && SEED[c] && SEED[c][k.seedKind];
      seedShown.add(k.seedType);
      if (sd)
        rows.push([
          k.seedType,
          'seed 001',
          seedCpuMem(sd.balancer),
          seedCpuMem(sd.backend),
          num(sd.rps, 1),
          num(sd.meanMs, 1),
          num(sd.p50),
          num(sd.p99),
          '0',
          'not reported',
        ]);
    }
    const base = got.none;
    const shares = kinds
      .filter((k) => k.kind !== 'none' && got[k.kind] && base)
      .map((k) => {
        const seedPart = SEED[c] ? `, seed ${ratio(SEED[c][k.seedKind].rps, SEED[c].none.rps)}` : '';
        return `${k.label} ${ratio(got[k.kind].rps, base.rps)}${seedPart}`;
      });
    if (shares.length)
      facts.push(`At concurrency ${c}, requests per second against no balancer: ${shares.join('; ')}.`);
    for (const k of kinds) {
      const o = got[k.kind];
      if (o && o.saturation && o.saturation.saturated) facts.push(`${k.label} at ${c}: ${o.saturation.verdict}.`);
      if (o && o.errors) facts.push(`${k.label} at ${c}: ${o.errors} request(s) failed (${o.errorCodes}).`);
    }
    out.push({
      caption: `Concurrency ${c}${SEED[c] ? '' : ' (the seed has no figures at this concurrency)'}`,
      head: [
        'type',
        'who',
        'balancer CPU/memory',
        'backend CPU/memory',
        'r/s',
        'mean ms',
        'p50',
        'p99',
        'failed',
        'generator CPU',
      ],
      rows,
    });
  }
  return [
    {
      title: 'No balancer, L4 and L7 at high concurrency, beside the seed',
      facts,
      tables: out.map((t, i) =>
        i === out.length - 1
          ? {
              ...t,
              note: "CPU in millicores (1000m = one core, the mean over the run), memory the node's peak; the seed's p50/p99 are from its ab listings. The seed's table headed \"200 Concurrency\" is filed under 2000: its ab output says so.",
            }
          : t,
      ),
    },
  ];
}

module.exports = {
  name: 'lb-modes',
  seed: '001',
  title: 'No balancer, L4 and L7, reproduced (seed 001)',
  what: 'GET /sleep?ms=200 through none / nginx L4 / nginx L7, 100,000 keep-alive requests at 200, 1,000 and 2,000',
  differs: [
    'one 2-core machine: the generator, nginx and the backend share it, where the seed had a Kubernetes cluster, loaded by ab at its address (192.168.18.213)',
    'the caps (one core and 1 GiB for nginx and for the backend) are control groups of local processes, as the seed set them on pods',
    "no balancer means the lab's generator connects to the backend itself; the seed's NodePort still went through kube-proxy",
    "the backend is the lab's Node service answering /sleep?ms=200 with a timer; the seed's was its own small program sleeping 200 ms",
  ],
  plan,
  sections,
  SEED,
  KINDS,
  DEFAULT_KINDS,
  CONCURRENCY,
};
