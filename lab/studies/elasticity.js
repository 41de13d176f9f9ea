'use strict';

const { num, summaryOf, YOUR_SERVICE_FLAGS } = require('./kit');
const { defined, serviceValues, scaleValues } = require('./passed');
const { labError } = require('../../common/errors');
const { SCRIPT_FLAG_NAMES } = require('../scenario/script-flags');

// Deployments that change under load: the same service and spikes (the course's, by default on
// the lab's /work, a fixed amount of CPU a request) on MIN replicas held fixed, MAX held fixed,
// and autoscaled between them by Kubernetes' HPA rule (--autoscale); for each, the failed
// requests, p99, when each spike was absorbed and the replicas' time (the cost). Then a rollout
// under a steady load of POSTs (a balancer never sends one twice), of a service that drains on
// SIGTERM and of one that exits at once (the lab's service both ways: --shutdown); with --app,
// a rollout of yours.
const RANGE = '1-4';
const ROLLOUT = { rate: 30, durationS: 60, atS: 15, sleepMs: 500, graceS: 10 };

function plan(o) {
  const range = o.autoscale ?? RANGE;
  const [min, max] = range.split('-').map(Number);
  if (!(min >= 1 && max > min))
    throw labError(
      'LAB_ERR_USAGE',
      `--autoscale ${range}: expected 1 <= MIN < MAX (the study compares MIN replicas with MAX, and autoscaling between them)`,
    );
  const yours = Boolean(o.app);
  if (yours && o.paths?.length > 1)
    throw labError(
      'LAB_ERR_USAGE',
      'the elasticity study loads one path of your service: give one with --endpoints /path',
    );
  // (Your service and its stores, as given: values, ./passed.js.)
  const service = serviceValues(o);
  // (Your service's /, unless --endpoints names its path.)
  const endpoint = yours ? (o.paths?.[0] ?? '/') : 'work';
  const spikes = (id, what, extra, values = {}) => ({
    kind: 'scenario',
    id,
    scenario: 'spikes',
    what: `${endpoint} spikes on ${what}`,
    expectedS: Math.round(165 * o.scale) + 20,
    args: ['scenario', endpoint, 'spikes', 'replicated', ...extra, '--generator', 'fast', '--no-graphite'],
    values: {
      ...service,
      ...scaleValues(o, { scale: o.scale !== 1 }),
      ...(o.sloP99 ? { 'slo-p99': o.sloP99 } : {}),
      ...values,
    },
  });
  const runs = [
    spikes('fixed-min', `${min} replica(s) held`, ['--replicas', String(min)]),
    spikes('fixed-max', `${max} replicas held`, ['--replicas', String(max)]),
    // (The range, its metric and target as given: values; the default range is the study's.)
    spikes(
      'autoscaled',
      `${min} to ${max} replicas, autoscaled`,
      o.autoscale ? [] : ['--autoscale', range],
      defined({ autoscale: o.autoscale, 'autoscale-metric': o.autoscaleMetric, 'autoscale-target': o.autoscaleTarget }),
    ),
  ];
  const durationS = Math.max(20, Math.round(ROLLOUT.durationS * o.scale));
  const atS = Math.max(5, Math.round(durationS / 4));
  const rollout = (id, what, extra, values = {}) => ({
    kind: 'scenario',
    id,
    what: `a rollout at ${atS} s of ${what}, under ${ROLLOUT.rate} requests a second`,
    expectedS: durationS + 30,
    args: [
      'scenario',
      ...extra,
      'endurance',
      'replicated',
      '--generator',
      'fast',
      '--rate',
      String(Math.max(1, Math.round(ROLLOUT.rate * o.rateScale))),
      '--duration',
      String(durationS),
      '--rollout-at',
      String(atS),
      '--grace',
      `${ROLLOUT.graceS}s`,
      '--no-graphite',
    ],
    values,
  });
  if (yours) runs.push(rollout('rollout-yours', 'your service', [endpoint], service));
  else {
    const sleep = [`/sleep?ms=${ROLLOUT.sleepMs}`, '--method', 'POST'];
    runs.push(rollout('rollout-drain', "the lab's service draining on SIGTERM", [...sleep, '--shutdown', 'drain']));
    runs.push(
      rollout('rollout-abrupt', "the lab's service exiting at once on SIGTERM", [...sleep, '--shutdown', 'abrupt']),
    );
  }
  return runs;
}

// A spikes run's row: { failed, p99, recovered (each spike's seconds, null: never), cost }.
function spikesRow(s, replicas) {
  if (!s) return null;
  const failed = (s.requestsFailed || 0) + (s.answersFailed?.count || 0);
  const loadS = s.durationS ?? null;
  return {
    failed,
    p99: s.responseTimeMs?.p99 ?? null,
    recovered: (s.spikes?.list || []).map((x) => x.recoveredS),
    replicaSeconds: s.autoscale
      ? s.autoscale.replicaSeconds
      : loadS !== null
        ? Math.round(replicas * loadS * 10) / 10
        : null,
    replicasText: s.autoscale
      ? `${s.autoscale.min}-${s.autoscale.max} (${[...new Set(s.autoscale.timeline.map((x) => x.replicas))].join(', ')} seen)`
      : String(replicas),
  };
}

// Each spike's time to be absorbed: "after 4 s, at once, never".
const recoveredText = (list) =>
  list.length ? list.map((r) => (r === null ? 'never' : r === 0 ? 'at once' : `after ${r} s`)).join(', ') : '-';

function findingsOf(rows, [min, max]) {
  const facts = [];
  const a = rows.autoscaled;
  const hi = rows['fixed-max'];
  const lo = rows['fixed-min'];
  if (a && hi && lo) {
    const share = hi.replicaSeconds ? Math.round((a.replicaSeconds / hi.replicaSeconds) * 100) : null;
    facts.push(
      `Autoscaled between ${min} and ${max}, the replicas used ${num(a.replicaSeconds)} replica-seconds (${share}% of ${max} held); the spikes were absorbed ${recoveredText(a.recovered)}, against ${recoveredText(hi.recovered)} with ${max} held and ${recoveredText(lo.recovered)} with ${min} held; ${a.failed} request(s) failed, against ${hi.failed} and ${lo.failed}.`,
    );
  }
  return facts;
}

function rolloutFacts(rollouts) {
  const facts = [];
  for (const [id, r] of Object.entries(rollouts)) {
    if (!r) continue;
    const f = (r.findings || []).find((x) => /^rollout-/.test(x.id));
    if (f) facts.push(`${ROLLOUT_LABELS[id]}: ${f.text}.`);
  }
  return facts;
}

const ROLLOUT_LABELS = {
  'rollout-drain': "The lab's service draining on SIGTERM",
  'rollout-abrupt': "The lab's service exiting at once on SIGTERM",
  'rollout-yours': 'Your service',
};

function sections({ studyDir, plan: runs }) {
  const auto = runs.find((r) => r.id === 'autoscaled');
  // (The range given, a value, or the study's own, a word.)
  const range = auto ? (auto.values?.autoscale ?? auto.args[auto.args.indexOf('--autoscale') + 1]) : RANGE;
  const [min, max] = range.split('-').map(Number);
  const rows = {
    'fixed-min': spikesRow(summaryOf(studyDir, 'fixed-min'), min),
    'fixed-max': spikesRow(summaryOf(studyDir, 'fixed-max'), max),
    autoscaled: spikesRow(summaryOf(studyDir, 'autoscaled'), null),
  };
  const labels = { 'fixed-min': `${min} held`, 'fixed-max': `${max} held`, autoscaled: 'autoscaled' };
  const rolloutIds = runs.filter((r) => r.id.startsWith('rollout-')).map((r) => r.id);
  const rollouts = Object.fromEntries(rolloutIds.map((id) => [id, summaryOf(studyDir, id)]));
  return [
    {
      title: 'Spikes on fixed and autoscaled replicas',
      facts: findingsOf(rows, [min, max]),
      tables: [
        {
          head: ['replicas', 'replicas seen', 'failed requests', 'p99 ms', 'spikes absorbed', 'replica-seconds'],
          rows: Object.entries(rows).map(([id, r]) => [
            labels[id],
            r?.replicasText ?? '-',
            r ? r.failed : '-',
            num(r?.p99, 1),
            r ? recoveredText(r.recovered) : '-',
            num(r?.replicaSeconds, 1),
          ]),
          note: "The same spikes on each. A spike (a phase at twice the rate before it, or more) is absorbed from the first second after which p99 stayed under the SLO (500 ms unless --slo-p99) with no failed request for 5 s. Replica-seconds: each replica's time over the load, summed. Autoscaled by Kubernetes' HPA rule with its defaults (--scale shortens every time of it): docs/elasticity.md.",
        },
      ],
    },
    {
      title: 'Rollouts under load',
      facts: rolloutFacts(rollouts),
      tables: [
        {
          head: ['service', 'replaced', 'in', 'failed requests', 'dropped at SIGTERM', 'other causes'],
          rows: rolloutIds.map((id) => {
            const r = rollouts[id]?.rollout;
            const dropped = r?.causes ? Object.entries(r.causes.dropped) : [];
            const other = r?.causes
              ? [
                  r.causes.gateway ? `${r.causes.gateway} 502/504` : '',
                  r.causes.refused ? `${r.causes.refused} refused` : '',
                  r.causes.reset ? `${r.causes.reset} reset` : '',
                ].filter(Boolean)
              : [];
            return [
              ROLLOUT_LABELS[id],
              r?.replaced ? r.replaced.map((x) => `${x.old} → ${x.new}`).join(', ') : '-',
              r?.seconds !== undefined ? `${r.seconds} s` : '-',
              r ? (r.failed ?? '-') : '-',
              dropped.length ? dropped.map(([n, c]) => `${n}: ${c}`).join(', ') : r ? '0' : '-',
              other.join(', ') || (r ? '-' : ''),
            ];
          }),
          note: 'Every replica replaced one at a time (at most one extra, at most none missing: 25% of 3) while the load runs; POSTs, which no balancer sends twice, so what a replica drops shows. A request dropped at SIGTERM is a 5xx the entry named that replica for, from its SIGTERM to a second after it exited.',
        },
      ],
    },
  ];
}

module.exports = {
  name: 'elasticity',
  seed: null,
  title: 'Deployments that change under load: autoscaling through spikes, and rollouts',
  what: `the course's spikes on ${RANGE.replace('-', ' and ')} replicas held and autoscaled between them (--autoscale), then a rollout of a service that drains on SIGTERM and one that exits at once (with --app: of yours, on --endpoints /path)`,
  differs: [
    "the course's spikes asked of a deployment whose replicas change: Kubernetes' autoscaling rule replayed on the lab's own deployment",
    'a rollout under load, which no load tester does: it does not deploy',
  ],
  // (Your service's own, but --fresh-per-level, --max-rate and --profile, which are the capacity
  // runs'.)
  flags: [
    ...YOUR_SERVICE_FLAGS.filter(
      (f) =>
        !['fresh-per-level', 'max-rate', 'profile', 'profile-interval', 'slo', 'script', 'tls', 'http2'].includes(f) &&
        !SCRIPT_FLAG_NAMES.includes(f),
    ),
    'autoscale',
    'autoscale-metric',
    'autoscale-target',
    'slo-p99',
    'rate-scale',
  ],
  takesApp: true,
  plan,
  sections,
};
