'use strict';

// `npm run choose`: its flags, checked once before anything starts (what the run refuses,
// --plan refuses), the capacity sweeps it runs (one `capacity --replicas` a shape, each
// checked by capacity's own plan now), and the plan's text with its bounds.

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand, flag } = require('../../terminal/flags');
const { RATE } = require('../../scenario/limits');
const { contextOf, contextArgs, CONTEXT } = require('../../topology/context');
const { assertClaimable } = require('../../ownership/dirs');
const { labError } = require('../../../common/errors');
const { BALANCERS } = require('../../kinds');
const { pickList } = require('../../names');
const { APP_FLAGS, APP_HELP } = require('../../app/flags');
const { parseSlo } = require('../../capacity/slo');
const { parseCap, describeCap } = require('../../topology/caps');
const { MIN_POINTS } = require('../../capacity/scaling');
const { MAX_REPLICAS } = require('../../choose/candidates');
const { LIMITS } = require('../../topology/deployments');
const { clock } = require('../../terminal/progress');
const { shellLine } = require('../../terminal/shell');
const budget = require('../../capacity/budget');
const { SEARCH_AGAIN } = require('../../capacity/search-again');
const capacityPlan = require('../../capacity/plan');
const { maybeJson } = require('../../results/files');
const { fingerprintOf, fingerprintDiffers } = require('../../capacity/fingerprint');
const { parsePrice, priceText } = require('../../choose/price');
const { SCRIPT_RUN_FLAGS, runScriptOptionsOf, scriptArgs } = require('../../scenario/script-flags');
const { NODE_FLAG, nodesOf, nodesText } = require('../../runtime/node-flag');

const USAGE = `usage: npm run choose -- <endpoint|path> --rate R [--slo 'p99<200'] [--app DIR] [options]
       npm run choose -- --script FILE --rate R [--slo ...] [options]
The deployment to choose: for your service, an SLO and a target rate, the cheapest deployment
that holds it. Each replica is held to a stated CPU share (--cap, the unit of cost); each shape's
capacity is measured at a few replica counts (npm run capacity -- --replicas), the Universal
Scalability Law fitted to them, and the fewest replicas predicted to hold the rate with its
headroom ranked by cores. The first is deployed and held at the rate (--hold) with the SLO
judged on the whole window; a level at its predicted knee is profiled to say what sets it.
The choice is written out as a compose file and Kubernetes manifests (docs/choose.md).
  --rate R           the target rate, arrivals a second (required)
  --slo EXPR         an SLO, repeatable (default: p99<200 and errors<1%)
  --headroom P       the margin a count must hold above the rate (default 30%)
  --cap NODE=CPU[,MEMORY]  a replica's CPU share, the unit of cost (default replica=25%);
                     repeatable, other nodes as for capacity
  --sizes 25%,50%,100%  the replica sizes compared, CPU shares (or 250m,500m,1000m): one sweep
                     of every shape a size, each count a candidate with its cores; instead of
                     --cap replica=CPU (a replica's memory, --cap replica=-,512M, goes with it)
  --shapes a,b       the shapes compared (default replicated,multi-replicated)
  --workers W        each multi-replicated replica's workers (default 2)
  --balancers a,b    the balancers compared (default nginx)
  --node 22,24       the Node versions compared (majors or exact versions the npm registry
                     serves, installed into the lab's cache on first use): one sweep each of
                     every shape, its service on that Node; the manifests build on the chosen
                     one (default: the lab's own Node, no sweep of its own)
  --replicas 1,2,3,4 the counts measured for each shape (${MIN_POINTS} at least for a fit)
  --max-replicas N   the most replicas a prediction may name (default ${MAX_REPLICAS})
  --hold D           how long the check holds the rate (default 2m)
  --tries N          candidates checked at most, in rank order, until one holds (default 2)
  --price cpu=C,memory=M   your prices, a core-hour and a GiB-hour (none built in): each
                     candidate's cost a month, and the cheapest ranked first
  --from DIR         the sweeps of an earlier choose (its folder): nothing is measured again,
                     only predicted and checked (the same SLO and caps)
  --script FILE, --method M, --body B, --header H, --expect-status S   the requests (as for capacity)
  -e, -c, -p, -v, --overrides, --dotenv, --scenario-name, -k   Artillery's run flags for --script,
                     passed on to every sweep and the check (npm run scenario -- --help)
${APP_HELP}
The capacity search's own settings, passed on to every sweep (npm run capacity -- --help):
  --start R, --min-rate R, --max-rate R, --precision P, --repetitions N, --verify-hold D,
  --recovery-wait D, --fresh-per-level, --warmup D, --max-levels N, --time-limit D,
  --search-hold D    (capacity's --hold: how long each level of a search is measured)
  --plan             print the sweeps, the check and the expected duration, and exit
  --run-dir DIR      the choice's folder: run again with the same settings, its sweeps resume
  --results-dir DIR, --port-base P, --host H, --state-dir DIR, --json`;

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

// The capacity search's flags, passed on to every sweep as the user typed them (choose's
// --search-hold is capacity's --hold); capacity's own parse checks each.
const PASSED = {
  start: RATE,
  'min-rate': RATE,
  'max-rate': RATE,
  precision: flag.percent(50, { fraction: true }),
  repetitions: flag.int(1, 10),
  'verify-hold': flag.duration(),
  'recovery-wait': flag.duration(),
  warmup: flag.duration(),
  'max-levels': flag.int(3, 200),
  'time-limit': flag.duration(),
  'fresh-per-level': flag.bool(),
  method: flag.string(),
  body: flag.string(),
  'expect-status': flag.string(),
  header: flag.list((v) => v),
  ...APP_FLAGS,
};
const RENAMED = { 'search-hold': 'hold' };

const COMMAND_FLAGS = {
  ...CONTEXT,
  ...APP_FLAGS,
  ...PASSED,
  script: flag.path(),
  // Artillery's run flags for the script (and -k), passed on to every sweep and the check.
  ...SCRIPT_RUN_FLAGS,
  rate: RATE,
  slo: flag.list(parseSlo),
  headroom: flag.percent(500, { zero: true }),
  cap: flag.list(parseCap),
  sizes: {
    type: 'custom',
    parse: parseSizes,
    expected: `1 to ${MAX_SIZES} replica sizes, CPU shares like 25%,50%,100% (or 250m,500m,1000m)`,
  },
  shapes: { type: 'custom', parse: parseShapes, expected: `shapes, like ${SHAPES.join(',')}` },
  // (A multi-replicated replica is a Node cluster: two workers at least; the most, the lab's.)
  workers: flag.int(2, LIMITS.workers.max),
  balancers: { type: 'custom', parse: parseBalancers, expected: 'balancers, like nginx,haproxy' },
  node: NODE_FLAG,
  replicas: capacityPlan.COUNTS,
  'max-replicas': flag.int(1, MAX_REPLICAS),
  hold: flag.duration(),
  tries: flag.int(1, 5),
  price: {
    type: 'custom',
    parse: parsePrice,
    expected: 'prices a core-hour and a GiB-hour, like cpu=0.04,memory=0.005',
  },
  from: flag.path(),
  'search-hold': flag.duration(),
  plan: flag.bool(),
  'results-dir': flag.path(),
  'run-dir': flag.path(),
};
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 1, name: 'endpoint' },
  flags: COMMAND_FLAGS,
});

const DEFAULTS = { headroom: 0.3, cap: 'replica=25%', workers: 2, replicas: [1, 2, 3, 4], holdS: 120, tries: 2 };
const DEFAULT_SLOS = ['p99<200', 'errors<1%'];

function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  const passed = passedTokens(argv);
  if (help) return { help: true };
  runScriptOptionsOf(values, given);
  const [word] = positionals;
  if (!word && !values.script)
    throw labError('LAB_ERR_MISSING_ARG', 'an endpoint, a path of your service or --script FILE', USAGE);
  if (word && values.script)
    throw labError('LAB_ERR_USAGE', `--script brings its own requests: give no endpoint with it (${word})`);
  if (values.rate === undefined)
    throw labError('LAB_ERR_MISSING_ARG', 'the target rate: --rate R (arrivals a second)', USAGE);
  const headroom = values.headroom ?? DEFAULTS.headroom;
  const want = Math.round(values.rate * (1 + headroom) * 10) / 10;
  // (A search stopped at --max-rate measures no count holding more: none could hold the rate.)
  if (values['max-rate'] !== undefined && values['max-rate'] < want)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'max-rate',
      values['max-rate'],
      `below what a count must hold (--rate ${values.rate} with ${Math.round(headroom * 100)}% headroom: ${want}/s): no search could measure a count that holds it`,
    );
  if (values.from) checkFrom(values, given);
  // One CPU share a replica: a cap given twice for a node is refused, not the last one taken.
  const capNodes = values.cap.map((c) => c.node);
  const capTwice = capNodes.find((n, i) => capNodes.indexOf(n) !== i);
  if (capTwice) throw labError('LAB_ERR_FLAG_VALUE', 'cap', capTwice, 'given twice: give one --cap for each node');
  // --sizes: the replica's CPU share is each size in turn (--cap replica= would be a second).
  const sizes = values.sizes ?? null;
  if (sizes && values.cap.some((c) => c.node === 'replica' && c.cpuPct !== null))
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'sizes',
      'cap',
      `--sizes ${sizes.map((x) => `${x}%`).join(',')} gives the replica's CPU shares compared, and --cap replica= gives one: give one of them (a replica's memory, --cap replica=-,512M, goes with --sizes)`,
    );
  const caps = sizes ? sizeCaps(values.cap, sizes[0]) : values.cap.length ? values.cap : [parseCap(DEFAULTS.cap)];
  const replicaCap = caps.filter((c) => c.node === 'replica' && c.cpuPct !== null).at(-1);
  if (!replicaCap)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'cap',
      values.cap.map((c) => c.node).join(','),
      "a choice's unit of cost is a replica's CPU share: give --cap replica=CPU (like replica=25%)",
    );
  // --from a `capacity --replicas` folder: its one sweep, its shape, balancer and counts.
  const single = values.from ? capacitySweepAt(values) : null;
  const shapes = single ? [single.shape] : (values.shapes ?? SHAPES);
  if (values.workers !== undefined && !shapes.includes('multi-replicated'))
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      'workers',
      'shapes',
      'the workers are those of a multi-replicated replica: add it to --shapes',
    );
  const balancers = single ? [single.balancer] : (values.balancers ?? ['nginx']);
  const counts = single ? single.counts : (values.replicas ?? DEFAULTS.replicas);
  const maxReplicas = values['max-replicas'] ?? MAX_REPLICAS;
  if (counts.some((n) => n > maxReplicas))
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'max-replicas',
      maxReplicas,
      `below the counts measured (${counts.join(',')}): no count above it can be chosen, so none is measured; give --replicas up to ${maxReplicas}`,
    );
  if (values.from && values['run-dir'] && path.resolve(values.from) === path.resolve(values['run-dir']))
    throw labError('LAB_ERR_FLAGS_EXCLUDE', 'from', 'run-dir', 'a choice reads an earlier one, never writes over it');
  const ctx = contextOf(values);
  assertClaimable(ctx.stateDir, '--state-dir');
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  const slos = values.slo.length ? values.slo : DEFAULT_SLOS.map(parseSlo);
  checkAnswers(slos, values);
  // (--node: the versions, resolved now, each a dimension like the shape: one sweep each.)
  const nodes = nodesOf(values);
  if (single && nodes?.length > 1)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'from',
      'node',
      `the sweep of ${values.from} ran on one Node version, and --node ${values.node.join(',')} names ${nodes.length}`,
    );
  const sweeps = [];
  for (const balancer of balancers) {
    for (const shape of shapes) {
      for (const node of nodes ?? [null]) {
        for (const size of sizes ?? [replicaCap.cpuPct]) {
          const workers = shape === 'multi-replicated' ? (single?.workers ?? values.workers ?? DEFAULTS.workers) : 1;
          const id = `${shape}${balancers.length > 1 || balancer !== 'nginx' ? `-${balancer}` : ''}${node ? `-node-${node.version}` : ''}${sizes ? `-${size}pct` : ''}`;
          sweeps.push({
            id,
            shape,
            workers,
            balancer,
            node,
            capPct: size,
            // (Each size's sweep with its own replica cap; without --sizes, the caps given.)
            caps: sizes ? sizeCaps(caps, size) : caps,
            sized: Boolean(sizes),
            ...(single ? { dir: values.from } : {}),
          });
        }
      }
    }
  }
  const out = {
    word: word ?? path.basename(values.script),
    values,
    slos,
    rate: values.rate,
    headroom,
    caps,
    capPct: replicaCap.cpuPct,
    counts,
    maxReplicas,
    sweeps,
    nodes,
    sizes,
    holdS: values.hold ?? DEFAULTS.holdS,
    tries: values.tries ?? DEFAULTS.tries,
    price: values.price ?? null,
    from: values.from ?? null,
    passed,
    scriptArgs: scriptArgs(values, given),
    ctx,
  };
  // Each sweep's command line, through capacity's own checks now: what a sweep would refuse
  // is refused before the first one starts.
  for (const s of sweeps) {
    s.argv = (dir) => capacityArgs(out, s, dir);
    s.plan = capacityPlan.plan(s.argv(path.join(ctx.stateDir, 'choose-check', s.id)));
    if (out.from) s.fromResult = fromSweep(out, s);
  }
  return out;
}

// The search's own flags, which --from would not use (nothing is searched again): refused.
// (--warmup and --search-hold stay: the check and the knee's level run with them.)
const SEARCH_ONLY = [
  'start',
  'min-rate',
  'max-rate',
  'precision',
  'repetitions',
  'verify-hold',
  'recovery-wait',
  'fresh-per-level',
  'max-levels',
  'time-limit',
];
// The check's percentile rests on enough answers: at least 100, and at least one beyond the
// percentile (p99: 100; p99.9: 1,000), at the target rate for --hold. (A check's p99 of 50
// answers, the second slowest, once passed for one.)
function minAnswers(slos) {
  let n = 100;
  for (const t of slos) {
    const q = /^p(\d+(?:\.\d+)?)$/.exec(t.metric ?? '');
    if (q && Number(q[1]) < 100) n = Math.max(n, Math.ceil(1 / (1 - Number(q[1]) / 100)));
  }
  return n;
}
function checkAnswers(slos, values) {
  const holdS = values.hold ?? DEFAULTS.holdS;
  const need = minAnswers(slos);
  if (values.rate * holdS >= need) return;
  throw labError(
    'LAB_ERR_FLAG_VALUE',
    'hold',
    values.hold !== undefined ? `${values.hold} s` : `${holdS} s (the default)`,
    `too short for the check's percentile: ${values.rate}/s for ${holdS} s gives ${Math.round(values.rate * holdS)} answers, and ${slos.map((s) => s.text).join(' and ')} needs ${need} at least; give --hold ${Math.ceil(need / values.rate)}s or more`,
  );
}

function checkFrom(values, given) {
  if (!fs.existsSync(values.from))
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'no such folder: give the folder of an earlier choose or of a capacity --replicas search',
    );
  if (!fs.statSync(values.from).isDirectory())
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'not a folder: give the folder of an earlier choose or of a capacity --replicas search',
    );
  const unused = SEARCH_ONLY.find((f) => given.has(f));
  if (unused)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'from',
      unused,
      `--from reads sweeps already measured, and --${unused} would change only a search: give one of them`,
    );
}

// An earlier choice's sweep, read for --from: refused when it measured something else.
function fromSweep(p, s) {
  const dir = s.dir ?? path.join(p.from, 'sweeps', s.id);
  const result = maybeJson(path.join(dir, 'capacity.json'));
  const search = maybeJson(path.join(dir, 'search.json'));
  if (!result || !search?.settings)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `it holds no sweep of ${s.id} (sweeps/${s.id}/capacity.json): give the folder of an earlier choose with the same --shapes and --balancers`,
    );
  const was = search.settings;
  const now = s.plan;
  const differs = [
    ['the SLO', was.slos, now.slos.map((t) => t.text)],
    ['the caps', was.caps, now.values.cap],
    ['the counts (--replicas)', was.replicas, now.sweep],
    ['the workers', was.workers, now.values.workers ?? null],
    ['the requests', was.words, now.words],
  ].filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b));
  if (differs.length)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep was measured with other settings (${differs.map(([n]) => n).join(', ')}): a choice reads only sweeps of its own settings`,
    );
  // What was measured: another service (or this one changed) is never read as this one.
  const other = fingerprintDiffers(was.fingerprint, fingerprintOf(now));
  if (other.length)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep measured something else: ${other.join(', ')} differ${other.length > 1 ? '' : 's'} (${describeFingerprint(was.fingerprint)}): a choice reads only sweeps of the service it chooses for; measure it (leave out --from)`,
    );
  if (result.status !== 'completed')
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep is ${result.status}, not completed: run that choose again with --run-dir to finish it`,
    );
  return result;
}

// A sweep's fingerprint in a few words (the service and its start line).
const describeFingerprint = (f) =>
  f
    ? `it measured ${f.service}${f.start ? ` (${f.start})` : ''}${f.with ? ` with ${f.with}` : ''}`
    : 'it kept no fingerprint';

// A `capacity --replicas` search folder given to --from (its search.json names a sweep), or
// null: then it is an earlier choice's folder. Its shape and counts are the choice's; flags
// that would name others are refused.
function capacitySweepAt(values) {
  const was = maybeJson(path.join(values.from, 'search.json'))?.settings;
  if (!was) return null;
  if (!was.replicas)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'its search is not a sweep of replica counts (capacity --replicas)',
    );
  for (const f of ['shapes', 'balancers', 'replicas', 'workers', 'sizes']) {
    if (values[f] !== undefined)
      throw labError(
        'LAB_ERR_FLAGS_EXCLUDE',
        'from',
        f,
        `the sweep of ${values.from} says its own (${f === 'replicas' ? was.replicas.join(',') : f})`,
      );
  }
  const shape = was.deployments?.[0];
  if (!SHAPES.includes(shape))
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      `its sweep is of ${shape}, not one of the shapes a choice compares (${SHAPES.join(', ')})`,
    );
  return { shape, balancer: was.balancer ?? 'nginx', counts: was.replicas, workers: was.workers };
}

// The capacity command line of one sweep, its folder `dir`.
function capacityArgs(p, s, dir) {
  const v = p.values;
  const args = [
    ...(v.script ? ['--script', v.script, ...p.scriptArgs] : [p.word]),
    '--deployments',
    s.shape,
    '--replicas',
    p.counts.join(','),
    ...(s.workers > 1 ? ['--workers', String(s.workers)] : []),
    '--balancer',
    s.balancer,
    // (The exact version resolved: every sweep and the check on the same Node.)
    ...(s.node ? ['--node', s.node.version] : []),
  ];
  for (const c of s.caps) args.push('--cap', capText(c));
  for (const slo of p.slos) args.push('--slo', slo.text);
  args.push(...p.passed, '--run-dir', dir, ...contextArgs(p.ctx), '--json');
  return args;
}

// The tokens of the flags passed on, as typed (--flag value, --flag=value, --flag), renamed
// where choose names them otherwise. (The command line was parsed already: a flag of
// choose's own that takes a value takes the next word.)
function passedTokens(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const [name, inline] = a.slice(2).split(/=(.*)/s);
    const spec = COMMAND_FLAGS[name];
    const takesValue = spec && !spec.boolean;
    const value = inline !== undefined ? inline : takesValue ? argv[++i] : undefined;
    const target = RENAMED[name] ?? (PASSED[name] ? name : null);
    if (!target) continue;
    out.push(`--${target}`, ...(value !== undefined ? [value] : []));
  }
  return out;
}

// A cap as --cap takes it.
const capText = (c) =>
  `${c.node}=${c.cpuPct !== null ? `${c.cpuPct}%` : ''}${c.periodUs ? `/${c.periodUs / 1000}ms` : ''}${c.memoryBytes !== null ? `,${Math.round(c.memoryBytes / 2 ** 20)}M` : ''}`;

// The plan's figures: each sweep's "about" and "at most", the check's, the whole (seconds).
function planFigures(p) {
  const searches = p.counts.length;
  const sweeps = p.from
    ? []
    : p.sweeps.map((s) => ({
        s,
        // (A count other programs' work held back is searched again: ../../capacity/search-again.js.)
        most: (searches + Math.min(SEARCH_AGAIN, searches)) * budget.maxS(s.plan),
        typical: searches * budget.typicalS(s.plan, capacityPlan.kneeOf(s.plan)),
      }));
  // (The check holds the rate, then the rate with its headroom, each for --hold.)
  const checkS = (p.headroom > 0 ? 2 : 1) * (p.holdS + (p.values.warmup ?? 2)) + 60;
  const most = sweeps.reduce((a, x) => a + x.most, 0) + p.tries * checkS + 60;
  const typical = Math.min(most, sweeps.reduce((a, x) => a + x.typical, 0) + checkS);
  return { sweeps, checkS, most, typical };
}

// What a choice is for, as its plan and its choice.json both say it.
const headOf = (p) => ({
  what: p.word,
  rate: p.rate,
  headroomPct: Math.round(p.headroom * 100),
  want: Math.round(p.rate * (1 + p.headroom) * 10) / 10,
  cpuPerReplica: p.capPct / 100,
  counts: p.counts,
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
  for (const { s, typical, most } of f.sweeps)
    lines.push(
      `measure ${s.id}${s.workers > 1 ? ` (${s.workers} workers a replica)` : ''}${s.sized ? ` of ${s.capPct}% of a core a replica` : ''} behind ${s.balancer}${s.node ? ` on Node ${nodesText([s.node])}` : ''}: capacity at ${p.counts.join(', ')} replicas, about ${clock(Math.min(typical, most))}, at most ${clock(most)} (${shellLine(['npm', 'run', 'capacity', '--', ...s.argv('DIR')])})`,
    );
  const ranked = p.price ? `ranked by cost a month (--price: ${priceText(p.price)})` : 'ranked by cores';
  lines.push(
    p.counts.length >= MIN_POINTS
      ? `predict: the Universal Scalability Law fitted to each shape's capacities (${MIN_POINTS} good counts at least), the fewest replicas holding the rate with its headroom, up to ${p.maxReplicas}; ${ranked}`
      : `predict: nothing: ${p.counts.length} count(s) (--replicas ${p.counts.join(',')}) give no fit of the scaling law (it needs ${MIN_POINTS}); only a count measured to hold the rate with its headroom can be chosen; ${ranked}`,
    `check: the first candidate deployed and held at ${p.rate}/s for ${clock(p.holdS)} (--hold)${p.headroom > 0 ? `, then at ${Math.round(p.rate * (1 + p.headroom) * 10) / 10}/s (the rate with its ${Math.round(p.headroom * 100)}% headroom, what the choice promises) for as long` : ''}, the SLO judged on the whole window with the answers it rests on said; when it does not hold, the next, ${p.tries} at most (--tries); then one level at its predicted knee, profiled`,
    `write: choice.json, choice.html, compose/docker-compose.yml and kubernetes/deployment.yml (a Deployment, a Service and an HPA), each checked against its schema`,
    `expected: about ${clock(f.typical)}, at most ${clock(f.most)}`,
  );
  return lines.join('\n');
}

module.exports = { USAGE, COMMAND, plan, planText, planJson, headOf, capacityArgs, SHAPES };
