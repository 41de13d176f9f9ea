'use strict';

// A choice's plan as the user reads it (npm run choose --plan, and the first lines of its log)
// and as data (--plan --json): what is measured, predicted, checked and written, each sweep's
// "about" and "at most", the whole bound; and what the choice is for (its head, which
// choice.json says too). p: the choice's plan (lab/commands/choose/plan.js).

const { describeCap } = require('../topology/caps');
const { MIN_POINTS } = require('../capacity/scaling');
const { clock } = require('../terminal/progress');
const { shellLine } = require('../terminal/shell');
const budget = require('../capacity/budget');
const { SEARCH_AGAIN } = require('../capacity/search-again');
const capacityPlan = require('../capacity/plan');
const { priceText } = require('./price');
const { nodesText } = require('../runtime/node-flag');
const { rampPhases } = require('./autoscale-check');
const { phasesText } = require('../scenario/phase-list');
const { MARGIN } = require('./screen');
const { headroomRate } = require('./check');

// The plan's figures: each sweep's "about" and "at most", the check's, the whole (seconds).
function planFigures(p) {
  const searches = p.counts.length;
  // (A count other programs' work held back is searched again: ../../capacity/search-again.js.)
  const most = (plan, n) => (n + Math.min(SEARCH_AGAIN, n)) * budget.maxS(plan);
  const typical = (plan, n) => n * budget.typicalS(plan, capacityPlan.kneeOf(plan));
  const sweeps = p.from
    ? []
    : p.sweeps.map((s) => ({
        s,
        most: most(s.plan, searches),
        typical: typical(s.plan, searches),
        // (A screen's unit swept after it at two counts: typically one unit, at most each.)
        ...(p.screen ? { sweepMost: most(s.sweepPlan, 2), sweepTypical: typical(s.sweepPlan, 2) } : {}),
      }));
  if (p.screen) {
    sweeps.sweepsTypical = Math.max(...sweeps.map((x) => x.sweepTypical));
    sweeps.sweepsMost = sweeps.reduce((a, x) => a + x.sweepMost, 0);
  }
  // (The check holds the rate, then the rate with its headroom, each for --hold.)
  const checkS = (p.headroom > 0 ? 2 : 1) * (p.holdS + (p.values.warmup ?? 2)) + 60;
  // (The autoscaler's run, when the HPA can scale: its ramp, its tail and a deployment.)
  const ramp = p.checkAutoscale ? rampPhases(p.rate, p.holdS, p.downWindowS) : null;
  const autoscaleS = ramp ? ramp.reduce((a, ph) => a + ph.duration, 60) : 0;
  const measureMost = sweeps.reduce((a, x) => a + x.most, 0) + (sweeps.sweepsMost ?? 0);
  const measureTypical = sweeps.reduce((a, x) => a + x.typical, 0) + (sweeps.sweepsTypical ?? 0);
  const all = measureMost + p.tries * checkS + autoscaleS + 60;
  return { sweeps, checkS, ramp, autoscaleS, most: all, typical: Math.min(all, measureTypical + checkS + autoscaleS) };
}

// The counts a sweep measures, as said.
const countsText = (p) => `${p.counts.join(', ')} replicas`;

// What a choice is for, as its plan and its choice.json both say it.
const headOf = (p) => ({
  what: p.word,
  rate: p.rate,
  headroomPct: Math.round(p.headroom * 100),
  want: Math.round(p.rate * (1 + p.headroom) * 10) / 10,
  cpuPerReplica: p.capPct / 100,
  counts: p.counts,
  countsFor: p.countsFor,
  from: p.from,
  price: p.price,
  nodes: p.nodes?.map((n) => n.version) ?? null,
  // (--sizes: the replica sizes compared, each a share of a core; cpuPerReplica is the first.)
  sizes: p.sizes ? p.sizes.map((x) => x / 100) : null,
});

// --plan --json: the plan as data (docs/choose.md, "The plan as JSON"), its text beside.
function planJson(p) {
  const f = planFigures(p);
  return {
    command: 'choose',
    ...headOf(p),
    sweeps: f.sweeps.map(({ s, typical, most }) => ({
      id: s.id,
      shape: s.shape,
      workers: s.workers,
      balancer: s.balancer,
      node: s.node?.version ?? null,
      cpuPerReplica: s.capPct / 100,
      aboutS: Math.min(typical, most),
      atMostS: most,
      command: ['npm', 'run', 'capacity', '--', ...s.argv('DIR')],
    })),
    check: {
      rate: p.rate,
      headroomRate: p.headroom > 0 ? Math.round(p.rate * (1 + p.headroom) * 10) / 10 : null,
      holdS: p.holdS,
      tries: p.tries,
    },
    autoscaleCheck: f.ramp ? { phases: phasesText(f.ramp), aboutS: f.autoscaleS } : null,
    downWindowS: p.downWindowS,
    expected: { aboutS: f.typical, atMostS: f.most },
    text: planText(p),
  };
}

// The sweeps' bound, the check's and the knee's.
function planText(p) {
  const f = planFigures(p);
  const lines = [
    `choose a deployment of ${p.word} for ${p.rate}/s under ${p.slos.map((s) => s.text).join(' and ')}, with ${Math.round(p.headroom * 100)}% headroom (a count must be predicted to hold ${Math.round(p.rate * (1 + p.headroom) * 10) / 10}/s)`,
    p.sizes
      ? `the sizes compared: replicas held to ${p.sizes.map((x) => describeCap({ cpuPct: x, periodUs: null, memoryBytes: null })).join(', ')} (--sizes), each size swept on its own; a figure measured here holds for a replica of that size anywhere`
      : `the unit of cost: each replica held to ${describeCap({ cpuPct: p.capPct, periodUs: null, memoryBytes: null })} (--cap replica=${p.capPct}%), so a figure measured here holds for a replica of that size anywhere`,
  ];
  if (p.from) lines.push(`measure: nothing; the sweeps of ${p.from} are read (the same SLO and caps)`);
  if (p.screen) return screenPlanText(p, f, lines);
  for (const { s, typical, most } of f.sweeps)
    lines.push(
      `measure ${s.id}${s.workers > 1 ? ` (${s.workers} workers a replica)` : ''}${s.sized ? ` of ${s.capPct}% of a core a replica` : ''} behind ${s.balancer}${s.node ? ` on Node ${nodesText([s.node])}` : ''}: capacity at ${countsText(p)}, about ${clock(Math.min(typical, most))}, at most ${clock(most)} (${shellLine(['npm', 'run', 'capacity', '--', ...s.argv('DIR')])})`,
    );
  const ranked = p.price ? `ranked by cost a month (--price: ${priceText(p.price)})` : 'ranked by cores';
  lines.push(
    p.counts.length >= MIN_POINTS
      ? `predict: the Universal Scalability Law fitted to each shape's capacities (${MIN_POINTS} good counts at least), the fewest replicas holding the rate with its headroom, up to ${p.maxReplicas}; ${ranked}`
      : `predict: nothing: ${p.counts.length} count(s) (--replicas ${p.counts.join(',')}) give no fit of the scaling law (it needs ${MIN_POINTS}); only a count measured to hold the rate with its headroom can be chosen; ${ranked}`,
  );
  return finish(p, f, lines);
}

// The plan's last lines, whatever measured: the check, the autoscaler's, the files, the time.
function finish(p, f, lines) {
  lines.push(
    `check: the first candidate deployed and held at ${p.rate}/s for ${clock(p.holdS)} (--hold)${p.headroom > 0 ? `, then at ${Math.round(p.rate * (1 + p.headroom) * 10) / 10}/s (the rate with its ${Math.round(p.headroom * 100)}% headroom, what the choice promises) for as long` : ''}, the SLO judged on the whole window with the answers it rests on said; when it does not hold, the next, ${p.tries} at most (--tries); then one level at its predicted knee, profiled`,
    f.ramp
      ? `check the autoscaler: the HPA it writes (the chosen count its minimum) run under the lab's Kubernetes-rule autoscaler from ${p.rate}/s to ${Math.round(2 * p.rate * 10) / 10}/s and back (${phasesText(f.ramp)}: the last phase its scale-down window and three syncs), when it can scale: did it scale out, hold the SLO and come back, about ${clock(f.autoscaleS)}`
      : 'check the autoscaler: no (--no-check-autoscale)',
    `write: choice.json, choice.html, compose/docker-compose.yml and kubernetes/deployment.yml (a Deployment, a Service and an HPA, its scale-down window ${p.downWindowS} s: --down-window), each checked against its schema`,
    `expected: about ${clock(f.typical)}, at most ${clock(f.most)}`,
  );
  return lines.join('\n');
}

// The plan at the defaults: each unit screened, then swept in the order of its bound.
function screenPlanText(p, f, lines) {
  const want = headroomRate(p);
  const unit = (s) =>
    `${s.id}${s.workers > 1 ? ` (${s.workers} workers a replica)` : ''}${s.sized ? ` of ${s.capPct}% of a core a replica` : ''} behind ${s.balancer}${s.node ? ` on Node ${nodesText([s.node])}` : ''}`;
  for (const { s, typical, most } of f.sweeps)
    lines.push(
      `screen ${unit(s)}: capacity at 1 replica, ${searchText(s.plan)}, about ${clock(Math.min(typical, most))}, at most ${clock(most)} (${shellLine(['npm', 'run', 'capacity', '--', ...s.argv('DIR')])})`,
    );
  const [first] = f.sweeps;
  const ranked = p.price ? `ranked by cost a month (--price: ${priceText(p.price)})` : 'ranked by cores';
  lines.push(
    `bound: replicas scale at best linearly, so a unit whose one replica broke at b/s in its screen (the highest rate it saw break) needs ceil(${want} / (b x ${MARGIN})) replicas at least (${Math.round((MARGIN - 1) * 100)}% for a screen's noise; one, when nothing broke); the units ordered by that bound (its cores, or its cost a month with --price)`,
    `measure: the units in that order, each at the count its bound names and the one above it, ${searchText(first.s.sweepPlan)}, its first level at 3/4 of what those replicas would hold if they scaled linearly, a count whose search breaks at or below ${want}/s stopped there (it does not hold it: not bisected or verified, --stop-below); until the cheapest count measured to hold ${want}/s costs no more than the next unit's bound (no unit left can be cheaper, and none is measured), about ${clock(Math.min(f.sweeps.sweepsTypical, f.sweeps.sweepsMost))} (one unit), at most ${clock(f.sweeps.sweepsMost)} (every unit) (npm run capacity -- ... --replicas N,N+1; --replicas to give the counts and sweep every unit at them)`,
    `predict: nothing from a screen (a bound orders the units and is never a capacity); the fewest replicas of a unit measured to hold ${want}/s; ${ranked}`,
  );
  return finish(p, f, lines);
}

// A capacity search's settings as said: its levels' hold and its verification.
const searchText = (plan) =>
  `levels of ${plan.values.hold ?? 'about 6-20'} s ${plan.precision >= 1 ? 'up to the first that broke (not bisected: --precision 100%)' : `bisected to ${Math.round(plan.precision * 100)}%`}${plan.recheck ? ', the break bounding the result measured once more, and the next when it held: twice at most (--recheck)' : ''}, ${plan.repetitions} verification(s) of ${plan.verifyHoldFor(plan.start)} s`;

module.exports = { planText, planJson, headOf, planFigures, countsText };
