'use strict';

const { num, ratio, summaryOf, repId, runsRange: range, busyWords } = require('./kit');
const {
  spread,
  repeated,
  agreed,
  versus,
  atCap,
  AT_CAP_RULE,
  shortOfCpu,
  SHORT_RULE,
  machineBusy,
} = require('../analysis/findings');
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
// Each run is repeated, interleaved (every run once, then again), so that a verdict comparing
// kinds is not one run's chance; --repetitions changes it.
const REPETITIONS = 3;
// The claim tested beside the seed's runs: a balancer short of CPU makes L7 expensive (the
// seed's ingress ran at 854m of its 1,000m). At the seed's concurrency of 1,000, L4 and L7
// again with the balancer capped lower; 100% is the seed's own cap, run above.
const SWEEP_C = 1000;
const SWEEP_CAPS = [50, 25, 15, 10, 5];
const sweepId = (kind, pct) => `lb-${kind}-c${SWEEP_C}-cap${pct}`;
// The seed's ratio of L7 to no balancer at 1,000, the level the sweep looks for.
const SEED_L7_RATIO = Math.round((SEED[1000].nginx.rps / SEED[1000].none.rps) * 100) / 100;
// CPU per request, ms: the balancer's millicores over its requests per second.
const cpuMsPerRequest = (cpuM, rps) => (cpuM != null && rps > 0 ? cpuM / rps : null);

function runArgs(kind, c, requests, capPct) {
  return [
    'scenario',
    'sleep',
    'load',
    'single',
    '--balancer',
    kind,
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
    ...(kind === 'none' ? [] : ['--cap', `balancer=${capPct}%,1G`]),
  ];
}

function plan({ scale, balancers, repetitions = REPETITIONS }) {
  const requests = Math.max(1000, Math.round(REQUESTS * scale));
  const kinds = (balancers || DEFAULT_KINDS).map(kindRow);
  const reps = (k) => (repetitions > 1 ? `, repetition ${k} of ${repetitions}` : '');
  const steps = [];
  for (let k = 1; k <= repetitions; k++) {
    for (const c of CONCURRENCY) {
      for (const b of kinds) {
        // 200 ms each, `c` at a time: the fastest the backend allows, plus what the machine adds.
        const floorS = (requests / c) * 0.2;
        steps.push({
          id: repId(id(b.kind, c), k),
          case: id(b.kind, c),
          repetition: k,
          kind: 'scenario',
          balancer: b.kind,
          what: `sleep 200 ms through ${b.label}, ${requests} requests at concurrency ${c}${reps(k)}`,
          args: runArgs(b.kind, c, requests, 100),
          expectedS: Math.round(Math.max(floorS, requests / 2500) + RUN_OVERHEAD_S),
        });
      }
    }
    // The sweep: each balancer kind at lower caps. Under a cap nginx passes about 250 r/s
    // per % of a core here (0.04 ms of CPU a request), which bounds the run's length.
    for (const pct of SWEEP_CAPS) {
      for (const b of kinds.filter((x) => x.kind !== 'none')) {
        steps.push({
          id: repId(sweepId(b.kind, pct), k),
          case: sweepId(b.kind, pct),
          repetition: k,
          kind: 'scenario',
          balancer: b.kind,
          sweep: pct,
          what: `sleep 200 ms through ${b.label} capped at ${pct}% of a core, ${requests} requests at concurrency ${SWEEP_C}${reps(k)}`,
          args: runArgs(b.kind, SWEEP_C, requests, pct),
          expectedS: Math.round(requests / Math.min(2500, 250 * pct) + RUN_OVERHEAD_S),
        });
      }
    }
  }
  return steps;
}

const nodeRow = (s, pred) => ((s.nodes && s.nodes.rows) || []).find(pred) || null;
const isBalancerOf = (k) => (r) => r.node === k.node;
const isBackend = (r) => /^replica/.test(r.node);
const cpuMem = (r) => (r ? `${num(r.cpuPctMean * 10)}m / ${num(r.memMiBMax)} MiB` : '-');
const seedCpuMem = (x) => (x ? `${x.cpuM}m / ${x.memMiB} MiB` : '-');
// The balancer's CPU in millicores: what its group accounted over the run, else the sampled mean.
const groupM = (r) => (r ? (r.cgroupCpuPct ?? r.cpuPctMean) * 10 : null);

function ours(studyDir, kind, runId) {
  const s = summaryOf(studyDir, runId);
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
    balancer: s.nodes && kind.node ? nodeRow(s, isBalancerOf(kind)) : null,
    backend: s.nodes ? nodeRow(s, isBackend) : null,
    saturation: s.saturation,
    generatorCpu: s.generator ? s.generator.cpuPctMean : null,
    summary: s,
  };
}

// The plan a study folder was made with, or the default one's ids when a caller has none.
const planOf = (steps) => (steps && steps.length ? steps : plan({ scale: 1, repetitions: 1 }));
// The repetitions of one run that have results: [{ k, o }] in repetition order.
function repsOf(studyDir, steps, caseId, kind) {
  return steps
    .filter((st) => (st.case ?? st.id) === caseId)
    .map((st) => ({ k: st.repetition ?? 1, o: ours(studyDir, kind, st.id) }))
    .filter((r) => r.o);
}

function sections({ studyDir, plan: given }) {
  const steps = planOf(given);
  const kinds = kindsOfPlan(steps);
  const out = [];
  const facts = [];
  for (const c of CONCURRENCY) {
    const rows = [];
    const got = {};
    const seedShown = new Set();
    for (const k of kinds) {
      const reps = repsOf(studyDir, steps, id(k.kind, c), k);
      got[k.kind] = reps;
      const lines = reps.length ? reps : [{ k: 1, o: null }];
      for (const { k: rep, o } of lines)
        rows.push([
          k.seedType,
          reps.length > 1 ? `this lab, run ${rep}` : 'this lab',
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
    // Each kind against no balancer, repetition by repetition (a ratio within one repetition,
    // so that a slow moment of the machine weighs on both sides).
    const shares = kinds
      .filter((k) => k.kind !== 'none' && got[k.kind].length && got.none && got.none.length)
      .map((k) => {
        const ratios = got[k.kind]
          .map(({ k: rep, o }) => {
            const base = got.none.find((b) => b.k === rep) || got.none[0];
            return o.rps / base.o.rps;
          })
          .filter(Number.isFinite);
        const sp = spread(ratios);
        const words = repeated(ratios.map(versus));
        const seedPart = SEED[c] ? `, seed ${ratio(SEED[c][k.seedKind].rps, SEED[c].none.rps)}` : '';
        const said =
          ratios.length > 1
            ? words.stable
              ? `, ${words.value === 'level' ? 'level with it' : words.value} in all ${words.of} runs`
              : ', unstable: the runs disagree'
            : '';
        return `${k.label} ${num(sp.median, 2)}x${range(sp)}${said}${seedPart}`;
      });
    if (shares.length)
      facts.push(`At concurrency ${c}, requests per second against no balancer: ${shares.join('; ')}.`);
    const load = machineLoad(
      c,
      kinds.flatMap((k) => got[k.kind]).map((r) => r.o.summary),
      got.none || [],
    );
    if (load) facts.push(load);
    for (const k of kinds) {
      for (const { k: rep, o } of got[k.kind]) {
        const which = got[k.kind].length > 1 ? ` (run ${rep})` : '';
        if (o.saturation && o.saturation.saturated) facts.push(`${k.label} at ${c}${which}: ${o.saturation.verdict}.`);
        if (o.errors) facts.push(`${k.label} at ${c}${which}: ${o.errors} request(s) failed (${o.errorCodes}).`);
      }
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
              note: `CPU in millicores (1000m = one core, the mean over the run), memory the node's peak; the seed's p50/p99 are from its ab listings. The seed's table headed "200 Concurrency" is filed under 2000: its ab output says so. Ratios against no balancer are taken within each repetition (runs interleaved); "level" means within 10%.`,
            }
          : t,
      ),
    },
    ...sweepSections(studyDir, steps, kinds),
  ];
}

// How busy the machine was over one concurrency's runs, and how much no balancer's own rate
// moved between its repetitions: what a ratio near 1 has to be read against. Null with no
// figures.
function machineLoad(c, summaries, none) {
  const b = machineBusy(summaries);
  if (!b) return null;
  const w = busyWords(b);
  const base = spread(none.map((r) => r.o.rps));
  const noise =
    base.n > 1
      ? `; no balancer's own rate went from ${num(base.min, 0)} to ${num(base.max, 0)} r/s over its ${base.n} repetitions (${num(base.relative * 100, 0)}% of their median)`
      : '';
  return `At concurrency ${c}, ${
    b.bound
      ? `this machine was near its limit: its ${b.cores} cores were ${w.machine} busy in every run`
      : `this machine's ${b.cores} cores were ${w.machine} busy`
  }${w.generator}${noise}.`;
}

// Each cap and capped kind, its repetitions: { capPct, kind, reps: [{ k, o, ratio (against
// no balancer, within its repetition), atCap, cpuMs }] }.
function sweepCells(studyDir, steps, capped) {
  const none = repsOf(studyDir, steps, id('none', SWEEP_C), kindRow('none'));
  const baseOf = (rep) => (none.find((b) => b.k === rep) || none[0] || {}).o;
  // [{ capPct, kind, reps: [{ k, o, ratio, atCap, cpuMs }] }]
  const cells = [];
  for (const pct of [100, ...SWEEP_CAPS]) {
    for (const k of capped) {
      const runId = pct === 100 ? id(k.kind, SWEEP_C) : sweepId(k.kind, pct);
      const reps = repsOf(studyDir, steps, runId, k).map(({ k: rep, o }) => {
        const base = baseOf(rep);
        return {
          k: rep,
          o,
          ratio: base ? o.rps / base.rps : null,
          atCap: o.balancer ? atCap(o.balancer) : false,
          cpuMs: cpuMsPerRequest(groupM(o.balancer), o.rps),
        };
      });
      cells.push({ capPct: pct, kind: k, reps });
    }
  }
  return cells;
}

// The verdict, repetition by repetition, on the claim that a balancer short of CPU makes L7
// expensive; where L7 fell, whether L4 held; what a request costs the balancer, beside the seed.
function sweepFacts(cells, l7, l4) {
  const seedL = (kind) => SEED[SWEEP_C][kind];
  const facts = [];
  const repIds = [...new Set(cells.flatMap((c) => c.reps.map((r) => r.k)))].sort((a, b) => a - b);
  const perRep = repIds.map((rep) => {
    const at = (kind, pct) => cells.find((c) => c.kind === kind && c.capPct === pct)?.reps.find((r) => r.k === rep);
    return shortOfCpu(
      [100, ...SWEEP_CAPS].map((pct) => ({
        capPct: pct,
        l7: at(l7, pct)?.ratio ?? null,
        l4: l4 ? (at(l4, pct)?.ratio ?? null) : null,
        l7AtCap: Boolean(at(l7, pct)?.atCap),
      })),
      { seedRatio: SEED_L7_RATIO },
    );
  });
  const v = agreed(perRep);
  facts.push(
    `Claim: a balancer short of CPU makes L7 expensive, as the seed's ingress (at 854m of its 1,000m) made its L7 ${SEED_L7_RATIO}x of no balancer. Verdict: ${v.verdict}: ${v.why}${v.of > 1 && v.stable ? ` (all ${v.of} repetitions agree; the figures are run 1's)` : ''}. Rule: ${SHORT_RULE(SEED_L7_RATIO)}; ${AT_CAP_RULE}.`,
  );
  if (perRep.length) {
    const falls = repeated(perRep.map((r) => (r.fallCap ? `${r.fallCap}%` : 'none of the caps run')));
    facts.push(
      `The cap at which ${l7.label} falls to ${SEED_L7_RATIO}x of no balancer: ${
        falls.stable
          ? `${falls.value}${falls.of > 1 ? ` in all ${falls.of} repetitions` : ''}`
          : `unstable (${falls.disagreement})`
      }.`,
    );
    if (l4 && perRep.some((r) => r.fallCap)) {
      const fell = perRep.map((r, i) => ({ ...r, k: repIds[i] })).filter((r) => r.fallCap);
      const holds = repeated(fell.map((r) => (r.l4Holds ? 'holds' : 'falls too')));
      const figures = fell
        .map((r) => `${fell.length > 1 ? `run ${r.k} at ` : ''}${r.fallCap}%: L4 ${num(r.l4, 2)}x, L7 ${num(r.l7, 2)}x`)
        .join('; ');
      facts.push(
        `${l4.label} at that cap: ${
          holds.stable ? holds.value : `unstable (${holds.disagreement})`
        } (${figures}; "holds": within 10% of no balancer or faster), where the seed's L4 held (${ratio(seedL('nginx-l4').rps, seedL('none').rps)}) at 680m.`,
      );
    }
  }
  // What a request costs the balancer, ours beside the seed's.
  const top = cells.find((c) => c.kind === l7 && c.capPct === 100);
  const ms = spread(top ? top.reps.map((r) => r.cpuMs) : []);
  const seedMs = cpuMsPerRequest(seedL('nginx').balancer.cpuM, seedL('nginx').rps);
  if (ms.n)
    facts.push(
      `CPU per L7 request at 100%: ${num(ms.median, 3)} ms here${range(ms, 3, ' ms')}, ${num(seedMs, 3)} ms in the seed (${num(seedMs / ms.median, 0)}x ours): at the seed's cost per request, ${num(top.reps[0].o.rps, 0)} r/s would need ${num((seedMs * top.reps[0].o.rps) / 1000, 1)} cores.`,
    );
  return facts;
}

// The balancer-CPU sweep, and the verdict on the claim it tests.
function sweepSections(studyDir, steps, kinds) {
  const capped = kinds.filter((k) => k.kind !== 'none');
  const swept = steps.some((st) => st.sweep);
  if (!swept || !capped.length) return [];
  const cells = sweepCells(studyDir, steps, capped);
  const rows = cells.map(({ capPct, kind, reps }) => {
    const rps = spread(reps.map((r) => r.o.rps));
    const rat = spread(reps.map((r) => r.ratio));
    const cpu = spread(reps.map((r) => groupM(r.o.balancer)));
    const ms = spread(reps.map((r) => r.cpuMs));
    const thr = spread(reps.map((r) => r.o.balancer?.throttledPct));
    const p99 = spread(reps.map((r) => r.o.p99));
    return [
      `${capPct}%`,
      kind.label,
      num(reps.length),
      num(rps.median, 0),
      rat.n ? `${num(rat.median, 2)}x${rat.n > 1 ? ` (${num(rat.min, 2)}-${num(rat.max, 2)})` : ''}` : '-',
      cpu.n ? `${num(cpu.median)}m` : '-',
      num(ms.median, 3),
      num(thr.median, 1),
      reps.length ? `${reps.filter((r) => r.atCap).length} of ${reps.length}` : '-',
      num(p99.median, 0),
    ];
  });
  const seedL = (kind) => SEED[SWEEP_C][kind];
  for (const [kind, label] of [
    ['nginx-l4', 'seed 001, LB - TCP'],
    ['nginx', 'seed 001, LB - HTTP'],
  ])
    rows.push([
      '100% (1,000m)',
      label,
      '1',
      num(seedL(kind).rps, 0),
      ratio(seedL(kind).rps, seedL('none').rps),
      `${seedL(kind).balancer.cpuM}m`,
      num(cpuMsPerRequest(seedL(kind).balancer.cpuM, seedL(kind).rps), 3),
      'not reported',
      '-',
      num(seedL(kind).p99, 0),
    ]);
  const sweepTable = {
    caption: `The balancer capped: ${SWEEP_C} connections, L4 and L7, against no balancer`,
    head: [
      'balancer cap',
      'kind',
      'runs',
      'r/s (median)',
      'against none (range)',
      'balancer CPU',
      'CPU ms / request',
      'periods throttled %',
      'at its cap',
      'p99 ms',
    ],
    rows,
    note: `Medians over the repetitions, each ratio taken within its repetition; balancer CPU is what its control group accounted over the run (millicores); CPU ms / request is that over its requests per second; ${AT_CAP_RULE}. The 100% rows are the runs at ${SWEEP_C} above.`,
  };
  // The verdict, repetition by repetition, on the L7 kind of the seed (nginx) or the plan's
  // first L7 kind, beside the plan's first L4 kind.
  const l7 = capped.find((k) => k.kind === 'nginx') || capped.find((k) => kindOf(k.kind).layer === 7);
  const l4 = capped.find((k) => k.kind === 'nginx-l4') || capped.find((k) => kindOf(k.kind).layer === 4);
  const facts = l7 ? sweepFacts(cells, l7, l4) : [];
  return [
    { title: 'The balancer short of CPU: a sweep of its cap', tables: [sweepTable] },
    { title: 'Why ours differs, tested', facts },
  ];
}

module.exports = {
  name: 'lb-modes',
  seed: '001',
  title: 'No balancer, L4 and L7, reproduced (seed 001)',
  what: 'GET /sleep?ms=200 through none / nginx L4 / nginx L7, 100,000 keep-alive requests at 200, 1,000 and 2,000, then L4 and L7 at 1,000 with the balancer capped from 50% down to 5% of a core; three repetitions interleaved',
  differs: [
    'one 2-core machine: the generator, nginx and the backend share it, where the seed had a Kubernetes cluster, loaded by ab at its address (192.168.18.213)',
    'the caps (one core and 1 GiB for nginx and for the backend) are control groups of local processes, as the seed set them on pods',
    "no balancer means the lab's generator connects to the backend itself; the seed's NodePort still went through kube-proxy",
    "the backend is the lab's Node service answering /sleep?ms=200 with a timer; the seed's was its own small program sleeping 200 ms",
    "every run is repeated three times by default, interleaved (--repetitions), and L4 and L7 run again at 1,000 with the balancer capped lower, to test why our L7 costs so much less than the seed's",
  ],
  plan,
  sections,
  SEED,
  KINDS,
  REPETITIONS,
  SWEEP_CAPS,
  SWEEP_C,
  DEFAULT_KINDS,
  CONCURRENCY,
};
