'use strict';

// `npm run choose`: its flags, checked once before anything starts (what the run refuses,
// --plan refuses), the capacity sweeps it runs (one `capacity --replicas` a shape, each
// checked by capacity's own plan now), and the plan's text with its bounds.

const path = require('node:path');
const { defineCommand, flag } = require('../../terminal/flags');
const { RATE } = require('../../scenario/limits');
const { contextOf, CONTEXT } = require('../../topology/context');
const { assertClaimable } = require('../../ownership/dirs');
const { labError } = require('../../../common/errors');
const { APP_HELP } = require('../../app/flags');
const { parseSlo } = require('../../capacity/slo');
const { parseCap, replicaCap: replicaCapOf } = require('../../topology/caps');
const { MIN_POINTS } = require('../../capacity/scaling');
const { MAX_REPLICAS } = require('../../choose/candidates');
const { LIMITS } = require('../../topology/deployments');
const capacityPlan = require('../../capacity/plan');
const { parsePrice } = require('../../choose/price');
const { runScriptOptionsOf } = require('../../scenario/script-flags');
const { passOn } = require('../../run/job');
const { COMMAND: SCENARIO } = require('../../run/scenario-flags');
// (The flags choose passes on to its sweeps and to the autoscaler's run.)
const { PASSED, TO_CAPACITY, TO_SCENARIO } = require('../../choose/passed-flags');
const { NODE_FLAG, nodesOf } = require('../../runtime/node-flag');
const parseDuration = require('../../terminal/duration');
const { DOWN_WINDOW_S, MAX_DOWN_WINDOW_S } = require('../../choose/manifests');
// (--from: the sweeps read, not measured: ../../choose/from.js.)
const { checkFrom, fromSweep, capacitySweepAt } = require('../../choose/from');
// (What is compared, and each sweep's command line: ../../choose/dimensions.js.)
const {
  SHAPES,
  MAX_SIZES,
  parseShapes,
  parseBalancers,
  parseSizes,
  sizeCaps,
  capacityArgs,
  sweepJob,
  afterScreen,
} = require('../../choose/dimensions');
// (The plan as it is said: ../../choose/plan-text.js.)
const { planText, planJson, headOf } = require('../../choose/plan-text');
const { checkAnswers, headroomRate } = require('../../choose/check');
const { SCREEN } = require('../../choose/screen');

const USAGE = `usage: npm run choose -- <endpoint|path> --rate R [--slo 'p99<200'] [--app DIR] [options]
       npm run choose -- --script FILE --rate R [--slo ...] [options]
The deployment to choose: for your service, an SLO and a target rate, the cheapest deployment
that holds it. Each replica is held to a stated CPU share (the unit of cost: --sizes, or --cap).
Each unit (a shape at a size) is screened at one replica; what that replica broke at bounds the
replicas it needs from below (they scale at best linearly), and the units are swept in the order
of their bounds (npm run capacity -- --replicas N,N+1) until no unit left can be cheaper than
the fewest replicas measured to hold the rate with its headroom. (--replicas: every unit swept
at those counts, the Universal Scalability Law fitted.) The cheapest is deployed and held at the
rate and at its headroom (--hold), the SLO judged on the whole window; a level at its knee is
profiled to say what sets it. The choice is written out as a compose file and Kubernetes
manifests (docs/choose.md).
  --rate R           the target rate, arrivals a second (required)
  --slo EXPR         an SLO, repeatable (default: p99<200 and errors<1%)
  --headroom P       the margin a count must hold above the rate (default 30%)
  --cap NODE=CPU[,MEMORY]  a replica's CPU share, one size instead of --sizes; repeatable,
                     other nodes as for capacity
  --sizes 25%,50%,100%  the replica sizes compared, CPU shares (or 250m,500m,1000m; default
                     25%,50% when no --cap replica=CPU): every shape at each size, each count a
                     candidate with its cores (a replica's memory, --cap replica=-,512M, goes
                     with every size)
  --shapes a,b       the shapes compared (default replicated,multi-replicated)
  --workers W        each multi-replicated replica's workers (default 2)
  --balancers a,b    the balancers compared (default nginx)
  --node 22,24       the Node versions compared (majors or exact versions the npm registry
                     serves, installed into the lab's cache on first use): one sweep each of
                     every shape, its service on that Node; the manifests build on the chosen
                     one (default: the lab's own Node, no sweep of its own)
  --replicas 1,2,3,4 the counts measured for every unit, nothing screened (${MIN_POINTS} at least
                     for a fit; default: each unit screened, then swept at two counts in the
                     order of its bound)
  --max-replicas N   the most replicas a prediction may name (default ${MAX_REPLICAS})
  --hold D           how long the check holds the rate, and then its headroom (default 1m)
  --tries N          candidates checked at most, in rank order, until one holds (default 2)
  --down-window D    the HPA's scale-down stabilization window, written and checked (default
                     ${DOWN_WINDOW_S} s; 0 to 1h, Kubernetes' own bounds): the autoscaler's run stays at
                     the rate that long, and three syncs, to see it come back
  --no-check-autoscale  no run of the HPA it writes (by default, when the HPA can scale, it
                     runs under the lab's autoscaler on a ramp from the rate to twice it and back)
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

const COMMAND_FLAGS = {
  ...CONTEXT,
  // (The service, its requests, Artillery's run flags for --script and -k, the search's own.)
  ...PASSED,
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
  'search-hold': capacityPlan.COMMAND.specs.hold,
  // (Kubernetes takes 0 to 3600 s for stabilizationWindowSeconds.)
  'down-window': {
    type: 'custom',
    parse: (raw) => {
      const s = parseDuration.orZero(raw);
      if (!(s <= MAX_DOWN_WINDOW_S)) throw new Error('too long');
      return s;
    },
    expected: 'a duration from 0 to 1h (0, 30s, 5m)',
  },
  'no-check-autoscale': flag.bool(),
  plan: flag.bool(),
  'results-dir': flag.path(),
  'run-dir': flag.path(),
};
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 1, name: 'endpoint' },
  flags: COMMAND_FLAGS,
});

// (No --replicas: 1 and 2, then where the rate with its headroom lands and the one above it,
// capacity --replicas-for: the counts bracket the answer, and a small service needs fewer.)
const DEFAULTS = { headroom: 0.3, cap: 'replica=25%', sizes: [25, 50], workers: 2, holdS: 60, tries: 2 };

const DEFAULT_SLOS = ['p99<200', 'errors<1%'];

// (argv: a command line, or a job: the library's, lab/run/job.js.)
function plan(argv) {
  const parsed = COMMAND.read(argv);
  const { help, values, given, positionals } = parsed;
  if (help) return { help: true };
  // What the user gave for the sweeps and for the autoscaler's run (a scenario), passed on.
  const toCapacity = passOn(COMMAND, capacityPlan.COMMAND, parsed, TO_CAPACITY);
  const toScenario = passOn(COMMAND, SCENARIO, parsed, TO_SCENARIO);
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
  // Neither given: a quarter and a half of a core compared (issue 82: how big a replica?).
  const capGiven = values.cap.some((c) => c.node === 'replica' && c.cpuPct !== null);
  // --from a `capacity --replicas` folder: its one sweep, its shape, balancer and counts.
  const single = values.from ? capacitySweepAt(values, SHAPES) : null;
  const sizes = values.sizes ?? (capGiven || single ? null : DEFAULTS.sizes);
  if (values.sizes && capGiven)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'sizes',
      'cap',
      `--sizes ${sizes.map((x) => `${x}%`).join(',')} gives the replica's CPU shares compared, and --cap replica= gives one: give one of them (a replica's memory, --cap replica=-,512M, goes with --sizes)`,
    );
  const caps = sizes ? sizeCaps(values.cap, sizes[0]) : values.cap.length ? values.cap : [parseCap(DEFAULTS.cap)];
  const replicaCap = replicaCapOf(caps);
  if (!replicaCap)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'cap',
      values.cap.map((c) => c.node).join(','),
      "a choice's unit of cost is a replica's CPU share: give --cap replica=CPU (like replica=25%)",
    );
  const shapes = single ? [single.shape] : (values.shapes ?? SHAPES);
  if (values.workers !== undefined && !shapes.includes('multi-replicated'))
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      'workers',
      'shapes',
      'the workers are those of a multi-replicated replica: add it to --shapes',
    );
  const balancers = single ? [single.balancer] : (values.balancers ?? ['nginx']);
  // No --replicas (nor --from): each unit screened at one replica, then swept in the order of
  // the bounds the screens give (../../choose/screen.js). With --replicas, every unit swept at
  // those counts.
  const screen = !values.from && !values.replicas;
  // (--from an earlier choice: each of its sweeps read at the counts it measured; --replicas
  // given with it, those counts are asked of every one.)
  const counts = single ? single.counts : (values.replicas ?? [1]);
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
  checkAnswers(slos, values, DEFAULTS.holdS);
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
            // (A screen: one replica, a short search, ../../choose/screen.js.)
            ...(screen ? { counts: [1], settings: SCREEN } : {}),
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
    // (No count is aimed at, capacity --replicas-for: a choice screens instead. Kept for
    // choice.json's readers.)
    countsFor: null,
    screen,
    maxReplicas,
    sweeps,
    nodes,
    sizes,
    holdS: values.hold ?? DEFAULTS.holdS,
    tries: values.tries ?? DEFAULTS.tries,
    price: values.price ?? null,
    from: values.from ?? null,
    toCapacity,
    toScenario,
    checkAutoscale: !values['no-check-autoscale'],
    downWindowS: values['down-window'] ?? DOWN_WINDOW_S,
    ctx,
  };
  // Each sweep's job (what runs) through capacity's own checks now: what a sweep would refuse
  // is refused before the first one starts. (Its command line, argv, is what the plan shows.)
  for (const s of sweeps) {
    s.argv = (dir) => capacityArgs(out, s, dir);
    s.job = (dir) => sweepJob(out, s, dir);
    s.plan = capacityPlan.plan(s.job(path.join(ctx.stateDir, 'choose-check', s.id)));
    if (out.from) s.fromResult = fromSweep(out, s);
    // (After a screen, the unit's sweep: at two counts its screen names, checked when known.
    // This one, at 1 and 2, is for the plan's figures.)
    if (screen)
      s.sweepPlan = capacityPlan.plan(
        afterScreen(out, s, [1, 2], null, headroomRate(out)).job(s.plan.values['run-dir']),
      );
  }
  return out;
}

module.exports = { USAGE, COMMAND, plan, planText, planJson, headOf, capacityArgs, SHAPES };
