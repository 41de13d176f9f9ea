'use strict';

// What a choice compares, as its flags name them (npm run choose): the shapes, the balancers,
// the replica sizes (--sizes), each sweep's caps at its size; and each sweep's capacity run: its
// job, and its command line as shown.

const { BALANCERS } = require('../kinds');
const { pickList } = require('../names');
const { parseCap } = require('../topology/caps');
const { contextArgs, contextValues } = require('../topology/context');
const { COMMAND: CAPACITY } = require('../capacity/plan');
const { jobInto, withValues } = require('../run/job');
const { labChild } = require('../run/child');
const { SWEEP } = require('./screen');

// --shapes, --balancers: names from their tables, each once (two sweeps of one shape would
// share its folder).
const names = (kind, valid) => (text) => {
  const list = pickList(kind, text, valid);
  const twice = list.find((x, i) => list.indexOf(x) !== i);
  if (twice) throw Object.assign(new Error(`names a ${kind} twice`), { reason: `it names ${twice} twice` });
  return list;
};
const parseShapes = (text) => names('shape', SHAPES)(text);
const parseBalancers = (text) =>
  names(
    'balancer',
    BALANCERS.map((k) => k.name),
  )(text);

// The shapes a choice compares: a deployment of replicas, each a process or a Node cluster.
const SHAPES = ['replicated', 'multi-replicated'];

// --sizes: the replica sizes compared, CPU shares as --cap takes them, each once (issue 82:
// four replicas of a quarter core, or one of a whole core?).
const MAX_SIZES = 4;
function parseSizes(text) {
  const sizes = String(text)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => parseCap(`replica=${x}`).cpuPct);
  if (!sizes.length || sizes.length > MAX_SIZES || sizes.includes(null))
    throw new Error(`1 to ${MAX_SIZES} CPU shares`);
  if (new Set(sizes).size !== sizes.length) throw new Error('a size twice');
  return sizes;
}
// The caps of a sweep of replicas of `pct`% of a core: the replica's CPU share set, its memory
// and the other nodes' caps as given.
const sizeCaps = (caps, pct) =>
  caps.some((c) => c.node === 'replica')
    ? caps.map((c) =>
        c.node === 'replica' ? { ...c, cpuPct: pct, periodUs: c.cpuPct === null ? null : c.periodUs } : c,
      )
    : [...caps, { node: 'replica', cpuPct: pct, periodUs: null, memoryBytes: null }];

// The capacity command line of one sweep, its folder `dir`: what the plan and choice.json show,
// to be run by hand (what the choice runs is its job: sweepJob below).
function capacityArgs(p, s, dir) {
  const { counts, settings } = runOf(p, s);
  const args = [
    ...(p.values.script ? [] : [p.word]),
    // (The user's flags first, as typed; the choice's settings for the rest after them.)
    ...shownTokens(
      { values: { ...p.toCapacity.values, ...settings, ...p.toCapacity.values }, tokens: p.toCapacity.tokens },
      CAPACITY.specs,
    ),
    '--deployments',
    s.shape,
    '--replicas',
    counts.join(','),
    ...(s.workers > 1 ? ['--workers', String(s.workers)] : []),
    '--balancer',
    s.balancer,
    // (The exact version resolved: every sweep and the check on the same Node.)
    ...(s.node ? ['--node', s.node.version] : []),
  ];
  for (const c of s.caps) args.push('--cap', capText(c));
  for (const slo of p.slos) args.push('--slo', slo.text);
  args.push('--run-dir', dir, ...contextArgs(p.ctx), '--json');
  return args;
}

// What a sweep runs: its counts (a screen's one replica, a unit's counts after the screen, or
// the choice's) and the capacity settings the choice gives where
// the user gave none (a screen's and a sweep's after it: ./screen.js; its first level's rate
// among them). s.counts, s.settings: set on a screen or a sweep after one.
const runOf = (p, s) => ({
  counts: s.counts ?? p.counts,
  settings: s.settings ?? {},
});

// The flags passed on (lab/run/job.js passOn: values, and texts as typed), as a command line
// shows them: a switch alone, a list flag once an item, a value as its flag shows it (a
// duration as 1m30s, a share as 5%: the spec's show), else as text. specs: capacity's.
function shownTokens({ values, tokens }, specs) {
  const text = (name, v) =>
    specs[name]?.show ? specs[name].show(v) : v && typeof v === 'object' ? (v.text ?? JSON.stringify(v)) : String(v);
  const out = [];
  for (const [name, v] of Object.entries(values)) {
    if (v === true) out.push(`--${name}`);
    else if (Array.isArray(v))
      out.push(
        ...(specs[name]?.multiple ? v.flatMap((x) => [`--${name}`, text(name, x)]) : [`--${name}`, v.join(',')]),
      );
    else if (v !== false && v !== undefined) out.push(`--${name}`, text(name, v));
  }
  return [...out, ...tokens];
}

// The sweep's capacity run as its job (lab/run/job.js): what the user gave for it passed on
// (its endpoint, parsed once by capacity's own flag table; its flags as choose parsed them, the
// same specs as capacity's), and what the choice decided (the shape, counts, caps, SLOs, Node,
// folder) set on it as data, never written as text to be parsed back (capText and the counts'
// text are for the command line shown). -> the parsed form capacity reads.
function sweepJob(p, s, dir) {
  const typed = CAPACITY.parsePart([...(p.values.script ? [] : [p.word]), ...p.toCapacity.tokens]);
  const { counts, settings } = runOf(p, s);
  const decided = {
    ...settings,
    ...p.toCapacity.values,
    deployments: s.shape,
    replicas: counts,
    ...(s.workers > 1 ? { workers: s.workers } : {}),
    balancer: s.balancer,
    ...(s.node ? { node: [s.node.version] } : {}),
    cap: s.caps,
    slo: p.slos,
    'run-dir': dir,
    ...contextValues(p.ctx),
    json: true,
  };
  return withValues(CAPACITY, typed, decided);
}

// A unit's sweep after its screen (./screen.js): at `counts`, with a sweep's settings where the
// user gave none, its first level at `start` (from the screen) unless the user gave --start,
// kept within the search's floor and highest rate; a count whose search breaks at or below
// `want` (the rate with its headroom) stops there (capacity --stop-below): it cannot be
// chosen, and its bisection and verification (about two minutes a count here) would give a
// figure the choice does not use. -> a sweep with its own job and command.
function afterScreen(p, s, counts, start, want = null) {
  const given = p.toCapacity.values;
  const first =
    start === null ? null : Math.min(given['max-rate'] ?? Infinity, Math.max(given['min-rate'] ?? 1, start));
  const settings = {
    ...SWEEP,
    ...(first !== null ? { start: first } : {}),
    ...(want !== null ? { 'stop-below': want } : {}),
  };
  const sw = { ...s, counts, settings };
  sw.argv = (dir) => capacityArgs(p, sw, dir);
  sw.job = (dir) => sweepJob(p, sw, dir);
  return sw;
}

// A sweep's capacity search started as a child run, its job in its folder: { child, done }
// (../run/child.js), its log passed through. (s.job: sweepJob, bound by the choice's plan.)
const startSweep = (s, dir) =>
  labChild(jobInto(dir, 'capacity', CAPACITY, s.job(dir)), { keepStdout: true, passStderr: true });

// A cap as --cap takes it.
const capText = (c) =>
  `${c.node}=${c.cpuPct !== null ? `${c.cpuPct}%` : ''}${c.periodUs ? `/${c.periodUs / 1000}ms` : ''}${c.memoryBytes !== null ? `,${Math.round(c.memoryBytes / 2 ** 20)}M` : ''}`;

module.exports = {
  SHAPES,
  MAX_SIZES,
  parseShapes,
  parseBalancers,
  parseSizes,
  sizeCaps,
  capacityArgs,
  sweepJob,
  afterScreen,
  startSweep,
  capText,
  shownTokens,
};
