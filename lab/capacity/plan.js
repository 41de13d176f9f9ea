'use strict';

// `npm run capacity -- <endpoint|path>`: its flags, the whole command line checked once before
// anything starts (what the run refuses, --plan refuses), and the plan's text with its bounds
// (lab/commands/capacity/http.js runs it). Below the commands: choose plans its sweeps with it,
// the studies and the fingerprint read it, and no command imports another command's files.

const path = require('node:path');
const { SPREAD_PCT, TIMEOUT_MS: CPU_READ_MS } = require('../measure/cpu-speeds');
const { KEPT_UP } = require('./level');
const { defineCommand, flag } = require('../terminal/flags');
const { RATE } = require('../scenario/limits');
const { NODE_FLAG, nodesOf, nodesText } = require('../runtime/node-flag');
const { contextOf, CONTEXT } = require('../topology/context');
const { assertClaimable } = require('../ownership/dirs');
const { labError } = require('../../common/errors');
const { resolveDeployment, COURSE, names, LIMITS } = require('../topology/deployments');
const { BALANCERS } = require('../kinds');
const { pick } = require('../names');
const { ENDPOINTS, isPath, pathOf } = require('../../artillery/scenarios');
const { APP_FLAGS, APP_HELP, appOf } = require('../app/flags');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { parseExpect } = require('../results/expect-status');
const { parseMethod, parseHeader, METHODS } = require('../scenario/request');
const { readScript } = require('../scenario/from-artillery');
const { clock } = require('../terminal/progress');
const { parseSlo, samplesFor, assertSloNames } = require('./slo');
const { requestNames } = require('../scenario/model');
const { requestName } = require('../scenario/naming');
const { SEARCH_AGAIN } = require('./search-again');
const { RULE: START_RULE } = require('./sweep-start');
const { RULE: COUNTS_FOR_RULE, machineCount } = require('./counts-for');
const { MAX_TRIES, RULE: VERIFY_RULE } = require('./verify');
const { WAIT_S, RULE: RECOVERY_RULE } = require('./recovery');
const { RULE: DRIFT_RULE } = require('./drift');
const { MAX_LEVELS } = require('./search');
const budget = require('./budget');
const { MIN_POINTS } = require('./scaling');
const { parseCap, checkCapsFit, describeCap, replicaCap } = require('../topology/caps');
const { shellLine } = require('../terminal/shell');
const { placeDeployment } = require('../runtime/deploy-plan');
const { OUT_FLAGS } = require('../outputs/flags');
const { passOn } = require('../run/job');
const { COMMAND: SCENARIO } = require('../run/scenario-flags');
const { PROFILE_FLAGS, profileOf, profileArgs } = require('../profile/flags');
const { TLS_FLAGS, tlsOf } = require('../tls/flags');
const { GENERATOR_FLAGS } = require('../generators');
const {
  SCRIPT_RUN_FLAGS,
  SCRIPT_FLAG_NAMES,
  SCRIPT_RUN_HELP,
  runScriptOptionsOf,
  scriptArgs,
  scriptArgsText,
} = require('../scenario/script-flags');

const USAGE = `usage: npm run capacity -- <endpoint|path> [--slo 'p99<200'] [--deployments a,b] [options]
       npm run capacity -- --script FILE [--slo ...] [--deployments a,b] [options]
What each deployment can take: the highest arrival rate that holds every SLO, found by steps
then bisection, verified by longer runs at that rate, and bracketed by a run above it that
breaks it. Where the generator or this machine is the limit, it says "at least" and why.
  --slo EXPR         an SLO, repeatable: p99<200, errors<1%, p99{POST /api/cart}<300
                     (default: p99<200 and errors<1%)
  --deployments a,b  the deployments to search (default ${COURSE.map((p) => p.name).join(',')})
  --script FILE      an Artillery script: its flow at each rate (npm run scenario -- --help)
  --method M, --body B, --header H, --expect-status S   the request of a path (as for scenario)
${APP_HELP}
  --balancer B       the entry of every deployment (default nginx)
  --node 22,24       the service on each of these Node versions (majors or exact versions the npm
                     registry serves; installed on first use into the lab's cache): one search a
                     version and deployment, and the difference between the versions
  --cap NODE=CPU[,MEMORY]  caps a node of every deployment searched, repeatable (as for deploy):
                     --cap replica=15% holds each replica to 15% of a core
How many replicas (docs/scaling.md):
  --replicas 1,2,3,4 the search at each replica count of one deployment (--deployments
                     replicated, the default, or multi-replicated with --workers), the Universal
                     Scalability Law fitted to the capacities (4 good points at least)
  --workers W        each replica's workers (multi-replicated)
  --predict N        predict the capacity at N replicas from the fit, then measure N to check it
  --need R           the fewest replicas predicted to hold R arrivals a second
  --replicas-for R   after the counts given, the one where R arrivals a second is expected to
                     land and the one above it, so the counts bracket it (choose's default)
  --max-replicas N   the most replicas --replicas-for may add (default 32; and what this
                     machine's cores hold at the replica's cap with a core left over)
  --stop-below R     a count whose search breaks at or below R stops there, not bisected or
                     verified: a verification only steps down from what held, so it does not
                     hold R; said as "below R", left out of the fit (choose's sweeps: the rate
                     wanted). Not where the machine or the generator may have broken it
  --start R          the first level's rate (default 50/s); each step doubles it, and when
                     the first level breaks, each step halves it until one holds
  --min-rate R       the lowest rate a search steps down to (default 1/s)
  --max-rate R       the highest rate tried (default 20000/s)
  --precision P      bisect until the bracket is within P (default 0.05; 100%: the first
                     bracket, a rate that held and the double that broke, no bisection)
  --recheck          once bisected, the top of the bracket (the lowest rate that broke above
                     the one held) measured again: one short level broken by a stall bounds a
                     search low; taken back, the bisection goes on
                     up to the next rate that broke, measured again in turn; twice at most
                     (choose's sweeps)
  --repetitions N    verification runs at the rate found (default 3), judged pooled; a rate
                     that does not hold is stepped down by P twice, then in growing steps
  --verify-hold D    how long each verification run holds the rate (default: twice a level's
                     hold): a capacity is a rate held for this long
  --recovery-wait D  after a level breaks, how long the service has to answer a light probe
                     as it did before the search (default 60s); one that does not has not
                     recovered from the overload, and the search says so and stops
  --fresh-per-level  redeploy before every level (a fresh database with --with): for a
                     service whose state grows under load, each level on the system as it starts
  --hold D           how long each level is measured (default: long enough for the SLO's
                     percentile, 20 answers beyond it, from 6 s to 20 s); after --warmup
  --warmup D         the first seconds of a level, left out of its figures (default 2s)
  --max-levels N     at most N levels in a deployment's search (default ${MAX_LEVELS})
  --time-limit D     at most D for a deployment's search (default 30m): nothing is started
                     that could end past it, and --plan's "at most" is this bound
  --plan             print the search's expected duration and exit
  --run-dir DIR      the search's folder: run again with the same settings, a search there
                     that was cut short resumes from its last measured level (a level that
                     broke is run again on the new deployment before its recovery is checked)
  --restart          with --run-dir: start its search over (its levels are deleted)
  --profile          every level's Node processes profiled in its middle, and its stores'
                     statements counted: the page shows, for each deployment, what they spent
                     their time on at the knee (the last level that held, the first that broke)
  --profile-interval US  the profiler's sampling interval (default 1000 µs)
  --out otlp=URL, --out-interval D   each level's metrics to an OpenTelemetry collector (as
                     for scenario; docs/pipelines.md); with $GITHUB_STEP_SUMMARY set, the search's
                     table is appended there
  --results-dir DIR, --dashboard [PORT], --port-base P, --host H, --state-dir DIR, --json
With --script:
${SCRIPT_RUN_HELP}
The WebSocket signaling capacity keeps its own form: npm run capacity -- --memory 500M`;

// --replicas 1,2,3,4: distinct counts from 1 to 32, in increasing order.
function parseCounts(text) {
  const counts = String(text)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map(Number);
  if (!counts.length || counts.some((n) => !Number.isInteger(n) || n < 1 || n > 32)) throw new Error('bad counts');
  if (new Set(counts).size !== counts.length) throw new Error('a count twice');
  return counts.sort((a, b) => a - b);
}

// --replicas, as a flag: choose takes it too.
const COUNTS = { type: 'custom', parse: parseCounts, expected: 'replica counts, like 1,2,3,4 (each from 1 to 32)' };

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 1, name: 'endpoint' },
  flags: {
    ...CONTEXT,
    ...APP_FLAGS,
    ...DASHBOARD_FLAGS,
    slo: flag.list(parseSlo),
    deployments: flag.string(),
    script: flag.path(),
    // Artillery's run flags for the script (and -k), passed on to every level's run.
    ...SCRIPT_RUN_FLAGS,
    // Passed on to each level's scenario as typed; checked here first.
    method: { type: 'custom', parse: (v) => (parseMethod(v), v), expected: `one of ${METHODS.join(', ')}` },
    body: flag.string(),
    header: flag.list((v) => (parseHeader(v), v)),
    'expect-status': {
      type: 'custom',
      parse: (v) => (parseExpect(v), v),
      expected: 'statuses or ranges, like 200,404 or 2xx',
    },
    balancer: flag.enum(
      BALANCERS.map((k) => k.name),
      'balancer',
    ),
    start: RATE,
    'max-rate': RATE,
    'min-rate': RATE,
    'recovery-wait': flag.duration(),
    'fresh-per-level': flag.bool(),
    out: OUT_FLAGS.out,
    ...TLS_FLAGS,
    'tls-resume': GENERATOR_FLAGS['tls-resume'],
    profile: PROFILE_FLAGS.profile,
    'profile-interval': PROFILE_FLAGS['profile-interval'],
    'out-interval': OUT_FLAGS['out-interval'],
    cap: flag.list(parseCap),
    replicas: COUNTS,
    workers: flag.int(LIMITS.workers.min, LIMITS.workers.max),
    predict: flag.int(1, 32),
    need: RATE,
    'replicas-for': { ...RATE, needs: { flags: ['replicas'], why: 'it adds counts to a sweep of replica counts' } },
    'max-replicas': { ...flag.int(1, 32), needs: { flags: ['replicas-for'], why: 'it bounds the counts it adds' } },
    'stop-below': {
      ...RATE,
      needs: { flags: ['replicas'], why: "it stops a count's search in a sweep of replica counts" },
    },
    precision: flag.percent(100, { fraction: true }),
    recheck: flag.bool(),
    repetitions: flag.int(1, 10),
    hold: flag.duration(),
    'verify-hold': flag.duration(),
    warmup: flag.duration(),
    'max-levels': flag.int(3, 200),
    'time-limit': flag.duration(),
    plan: flag.bool(),
    restart: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    node: NODE_FLAG,
  },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const HELP = [USAGE, COMMAND.needsHelp()].filter(Boolean).join('\n');

const DEFAULT_SLOS = ['p99<200', 'errors<1%'];

// What each level's run is given of what the user typed (scenario's names): the script and
// Artillery's run flags for it, the request of a path, the profile, the TLS resumption.
const TO_LEVEL = Object.fromEntries(
  [
    'script',
    ...SCRIPT_FLAG_NAMES,
    'method',
    'body',
    'expect-status',
    'header',
    'profile',
    'profile-interval',
    'tls-resume',
  ].map((n) => [n, n]),
);

function plan(argv) {
  const parsed = COMMAND.read(argv);
  const { help, values, given, positionals } = parsed;
  if (help) return { help: true };
  const [word] = positionals;
  if (!word && !values.script) {
    throw labError('LAB_ERR_MISSING_ARG', 'an endpoint, a path of your service or --script FILE', USAGE);
  }
  if (word && values.script)
    throw labError('LAB_ERR_USAGE', '--script brings its own requests: give no endpoint with it');
  if (word && !isPath(word))
    pick(
      'endpoint',
      word,
      Object.keys(ENDPOINTS).filter((e) => !ENDPOINTS[e].participants),
    );
  // The script as every level's run will read it: with Artillery's run flags given (-e, -c,
  // --overrides...), which a flag without --script is refused by.
  const scriptOptions = runScriptOptionsOf(values, given);
  const model = values.script ? readScript(values.script, scriptOptions) : null;
  const slos = values.slo.length ? values.slo : DEFAULT_SLOS.map(parseSlo);
  // The requests the levels send: the script's, or the path's one (named as the scenario names it).
  const sent = model
    ? requestNames(model)
    : [
        requestName({
          method: values.method ? parseMethod(values.method) : values.body !== undefined ? 'POST' : 'GET',
          url: pathOf(word),
        }),
      ];
  assertSloNames(slos, sent, model ? `the script ${values.script}` : `the path ${word}`);
  const sweep = values.replicas ?? null;
  const deployments = (values.deployments ?? (sweep ? 'replicated' : COURSE.map((p) => p.name).join(',')))
    .split(',')
    .map((d) => pick('deployment', d.trim(), names()));
  if (new Set(deployments).size !== deployments.length)
    throw labError('LAB_ERR_FLAG_VALUE', 'deployments', values.deployments, 'names one twice');
  checkSweep(values, sweep, deployments);
  // (A sweep on one Node version is a sweep like another, its service on that Node: choose
  // --node runs one a version. Two versions would make two sweeps of one folder.)
  if (values.node?.length > 1 && sweep)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'node',
      'replicas',
      `--replicas sweeps the replica counts on one Node version, and --node ${values.node.join(',')} names ${values.node.length}: give one version to a sweep (choose --node compares versions, one sweep each)`,
    );
  // --tls / --http2: the entry of every deployment searched (checked against its kind here).
  const tls = tlsOf(values, { balancer: values.balancer ?? 'nginx', host: contextOf(values).host });
  if (values['tls-resume'] !== undefined && !tls)
    throw labError('LAB_ERR_FLAG_NEEDS', 'tls-resume', 'tls', 'it is for a --tls entry');
  if (values['fresh-per-level'] && values['recovery-wait'] !== undefined)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'recovery-wait',
      'fresh-per-level',
      '--recovery-wait is how long a deployment has to recover between levels; --fresh-per-level deploys a new one instead: give one of them',
    );
  checkRates(values);
  if (values.restart && !values['run-dir'])
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      'restart',
      'run-dir',
      "it starts over the search of a --run-dir: give the search's --run-dir",
    );
  if (values['fresh-per-level'] && values['keep-data'])
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'fresh-per-level',
      'keep-data',
      '--fresh-per-level gives every level a fresh database; --keep-data keeps the data between deploys: give one of them',
    );
  const app = appOf(values);
  // Checked now: each deployment resolves (a shell start with workers is refused here), and
  // its caps name nodes it has and fit this machine.
  const ctx0 = contextOf(values);
  for (const d of deployments) {
    for (const n of sweep ? [...sweep, ...(values.predict ? [values.predict] : [])] : [null]) {
      const dep = recipeOf(values, d, n, { app, tls });
      checkCapsFit(placeDeployment(dep, { portBase: ctx0.portBase, caps: values.cap }).caps);
    }
    const dep = recipeOf(values, d, null, { app, tls });
    if (app && dep.workers > 1 && !app.run.node) {
      throw labError(
        'LAB_ERR_USAGE',
        `${d} runs node:cluster workers of your service, which needs a plain \`node file.js\` start: give --app-cmd`,
      );
    }
  }
  const ctx = contextOf(values);
  assertClaimable(ctx.stateDir, '--state-dir');
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  // The child runs' words, and the flags passed on to them (../run/job.js passOn: the script's,
  // the request's, --profile, --tls-resume): each level's job (./level.js) is made of these.
  const levelWords = values.script ? [] : [word, 'endurance'];
  const passed = passOn(COMMAND, SCENARIO, parsed, TO_LEVEL);
  // The same as a command line shows them: what the plan says, and what makes two searches the
  // same search (./search-dir.js, ./fingerprint.js).
  const words = values.script ? ['--script', values.script, ...scriptArgs(values, given)] : [word, 'endurance'];
  const extra = [];
  for (const f of ['method', 'body', 'expect-status']) if (values[f] !== undefined) extra.push(`--${f}`, values[f]);
  for (const h of values.header) extra.push('--header', h);
  // (--profile: every level profiled in its middle; the page shows the knee's.)
  extra.push(...profileArgs(values));
  // (--tls-resume off: each level's new connections make full handshakes.)
  if (values['tls-resume'] !== undefined) extra.push('--tls-resume', values['tls-resume']);
  if (values.script && ['method', 'body', 'header'].some((f) => given.has(f))) {
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'script',
      ['method', 'body', 'header'].find((f) => given.has(f)),
      "--method, --body and --header shape a path's request; your script (--script) says its own",
    );
  }
  const holdFor = (rate) => values.hold ?? Math.min(20, Math.max(6, Math.ceil(samplesFor(slos) / rate)));
  const out = {
    word: word ?? path.basename(values.script),
    // (Artillery's run flags for the script, as each level's run is given them.)
    scriptFlags: values.script ? scriptArgsText(words.slice(2)) : null,
    sweep,
    // (--replicas-for: the rate the counts added aim at, and the most they may be.)
    countsFor: values['replicas-for'] ?? null,
    // (--stop-below: a count's search ends at a break at or below it: ../capacity/search.js.)
    stopBelow: values['stop-below'] ?? null,
    // (--recheck: the lowest break measured again once bisected: ../capacity/search.js.)
    recheck: values.recheck === true,
    maxCount: values['replicas-for']
      ? Math.min(values['max-replicas'] ?? 32, machineCount(replicaCap(values.cap)?.cpuPct))
      : null,
    model,
    words,
    extra,
    levelWords,
    passed,
    slos,
    deployments,
    // (--node: the versions, resolved now: what the plan says is what runs.)
    nodes: nodesOf(values),
    app,
    tls,
    values,
    ctx,
    start: values.start ?? RATES.start,
    maxRate: values['max-rate'] ?? RATES.max,
    floor: values['min-rate'] ?? RATES.floor,
    recoveryWaitS: values['recovery-wait'] ?? WAIT_S,
    fresh: values['fresh-per-level'],
    expect: parseExpect(values['expect-status']),
    profile: profileOf(values),
    precision: values.precision ?? 0.05,
    repetitions: values.repetitions ?? 3,
    warmupS: values.warmup ?? 2,
    holdFor,
    // (A verification's run holds twice a level's time unless said: a capacity is a rate held
    // for a stated time, and a longer one finds a knee that moves with time. In a sweep, every
    // count's for as long, the hold at --start: the points fitted are one measure. Once a
    // count verified at 20/s held for 40 s and one at 80/s for 12 s in the same sweep: issue 82.)
    verifyHoldFor: (rate) => values['verify-hold'] ?? 2 * holdFor(sweep ? (values.start ?? RATES.start) : rate),
    maxLevels: values['max-levels'] ?? MAX_LEVELS,
    timeLimitS: values['time-limit'] ?? TIME_LIMIT_S,
  };
  // The time limit leaves room for a capacity: the deployment, its baseline, one level, the
  // probe at rest and the verification's runs (a search that could verify nothing is refused
  // now, not found out after its time limit).
  const room = budget.verifiedS(out);
  if (out.timeLimitS < room)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'time-limit',
      `${clock(out.timeLimitS)}${values['time-limit'] === undefined ? ' (the default)' : ''}`,
      `leaves no room for a verified capacity: a deployment, its first level, the probe at rest and ${out.repetitions} verification run(s) of ${out.verifyHoldFor(out.start)} s take up to ${clock(room)}; give a longer --time-limit, or a shorter --verify-hold or fewer --repetitions`,
    );
  return out;
}

// The search's rates when not given: the first level's, the highest tried, the floor.
const RATES = { start: 50, max: 20000, floor: 1 };

// --start, --min-rate and --max-rate in order (floor <= start <= highest), each named as typed
// or as the default it is. Of a pair out of order, the flag blamed is one the user typed: the
// bound beside --start when typed, else --start, and the other is named with "the default".
const ORDER = [
  {
    flag: 'min-rate',
    key: 'floor',
    outOfOrder: (bound, start) => bound > start,
    blamed: "above the first level's rate",
    startBlamed: "below the floor: the first level's rate is at least the lowest rate tried",
  },
  {
    flag: 'max-rate',
    key: 'max',
    outOfOrder: (bound, start) => start > bound,
    blamed: "below the first level's rate: the highest rate tried is at least the first",
    startBlamed: 'above the highest rate tried',
  },
];
function checkRates(values) {
  const named = (f, key) => (values[f] !== undefined ? `--${f} ${values[f]}` : `--${f} ${RATES[key]}, the default`);
  const start = values.start ?? RATES.start;
  for (const o of ORDER) {
    if (!o.outOfOrder(values[o.flag] ?? RATES[o.key], start)) continue;
    const [text, rest] = (values[o.flag] !== undefined ? o.blamed : o.startBlamed).split(': ');
    const other = values[o.flag] !== undefined ? named('start', 'start') : named(o.flag, o.key);
    const f = values[o.flag] !== undefined ? o.flag : 'start';
    throw labError('LAB_ERR_FLAG_VALUE', f, values[f], `${text} (${other})${rest ? `: ${rest}` : ''}`);
  }
}

// A deployment's search, at most (--time-limit).
const TIME_LIMIT_S = 30 * 60;

// --replicas and what goes with it, checked together once.
function checkSweep(values, sweep, deployments) {
  if (!sweep) {
    for (const f of ['predict', 'need', 'workers']) {
      if (values[f] !== undefined)
        throw labError(
          'LAB_ERR_FLAG_NEEDS',
          f,
          'replicas',
          'it is for a sweep of replica counts: add --replicas 1,2,3,4',
        );
    }
    return;
  }
  if (deployments.length !== 1)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'deployments',
      deployments.join(','),
      'more than one, and --replicas sweeps one deployment: give one (replicated)',
    );
  const d = resolveDeployment(deployments[0]);
  if (d.replicas < 2 && !['replicated', 'multi-replicated'].includes(d.name)) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'deployments',
      d.name,
      `has one process, and --replicas sweeps a deployment of replicas: use --deployments replicated or multi-replicated`,
    );
  }
  if (values.predict !== undefined && sweep.includes(values.predict)) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'predict',
      values.predict,
      'one of the counts measured; a prediction is checked at a count the fit did not see',
    );
  }
  if ((values.predict !== undefined || values.need !== undefined) && values['replicas-for'] !== undefined)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      values.predict !== undefined ? 'predict' : 'need',
      'replicas-for',
      '--replicas-for picks counts as the sweep goes, and a prediction needs the counts fixed: give one of them',
    );
  if ((values.predict !== undefined || values.need !== undefined) && sweep.length < MIN_POINTS) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'replicas',
      sweep.join(','),
      `${sweep.length} count(s), and --${values.predict !== undefined ? 'predict' : 'need'} needs a fit: a fit needs ${MIN_POINTS} replica counts at least`,
    );
  }
}

// A deployment's overrides at replica count n (null: its own), with --workers.
const countsOf = (values, n, o) => ({
  ...o,
  ...(n ? { replicas: n } : {}),
  ...(values.workers !== undefined ? { workers: values.workers } : {}),
});

// How each deployment is set up and each level run, from the flags that shape them: the entry
// (its balancer, TLS), the caps, the runtime probe, the requests' own flags, the search's
// folder. (Each changes what runs, so --plan says it.)
function deployedText(p) {
  const v = p.values;
  const entry = `behind ${v.balancer ?? 'nginx'}${p.tls ? ` over TLS${p.tls.http2 ? ' and HTTP/2' : ''}${p.tls.cert ? ' (your certificate)' : " (the lab's own CA)"}` : ''}`;
  const caps = v.cap.length ? `; capped: ${v.cap.map((c) => `${c.node} ${describeCap(c)}`).join(', ')}` : '; no caps';
  const probe = v['no-probe'] ? '; without the runtime probe (--no-probe)' : '';
  const workers = v.workers !== undefined ? `; ${v.workers} worker(s) a replica (--workers)` : '';
  const run = p.extra.length ? `\neach level's run adds: ${shellLine(p.extra)}` : '';
  const dir = v['run-dir']
    ? `\nthe search's folder: ${v['run-dir']} (run again with the same settings, it resumes)`
    : '';
  const nodes = p.nodes
    ? `\nthe service on Node ${nodesText(p.nodes)}: ${p.sweep ? 'every count searched on it' : 'each deployment searched on each'}`
    : '';
  return `deployed ${entry}${workers}${caps}${probe}${nodes}${run}${dir}`;
}

// The knee the plan's "about" assumes: 640/s, within the search's own bounds.
const kneeOf = (p) => Math.max(p.floor, Math.min(640, p.maxRate));

// The plan's figures: how many searches, the knee its "about" assumes, "about" and "at most"
// (seconds). (A typical search is never longer than its bound: "about" is at most "at most".)
function planFigures(p) {
  const searches = p.sweep
    ? p.sweep.length + (p.values.predict ? 1 : 0) + (p.countsFor ? 2 : 0)
    : p.deployments.length * (p.nodes?.length ?? 1);
  const again = Math.min(SEARCH_AGAIN, searches);
  const most = (searches + again) * budget.maxS(p);
  const knee = kneeOf(p);
  return { searches, again, knee, most, typical: Math.min(most, searches * budget.typicalS(p, knee)) };
}

// --plan --json: the plan as data (docs/scaling.md, "The plan as JSON"), its text beside.
function planJson(p) {
  const { searches, again, knee, most, typical } = planFigures(p);
  return {
    command: 'capacity',
    what: p.word,
    deployments: p.deployments,
    replicas: p.sweep,
    nodes: p.nodes?.map(({ spec, version, own, cached }) => ({ spec, version, own, cached })) ?? null,
    slos: p.slos.map((t) => t.text),
    levels: {
      warmupS: p.warmupS,
      holdS: p.holdFor(p.start),
      start: p.start,
      maxRate: p.maxRate,
      minRate: p.floor,
      precision: p.precision,
      stopBelow: p.stopBelow ?? null,
      recheck: p.recheck,
    },
    verification: { runs: p.repetitions, holdS: p.verifyHoldFor(p.start) },
    bounds: { maxLevels: p.maxLevels, timeLimitS: p.timeLimitS },
    expected: {
      searches,
      searchedAgainAtMost: again,
      kneeRate: knee,
      aboutS: typical,
      atMostS: most,
    },
    text: planText(p),
  };
}

function planText(p) {
  const { searches, again: againN, knee, most, typical } = planFigures(p);
  const on = p.sweep
    ? `${p.deployments[0]} at ${p.sweep.join(', ')}${p.values.predict ? ` (then ${p.values.predict}, predicted first)` : ''} replicas${p.countsFor ? `, ${COUNTS_FOR_RULE.replace('the rate', `${p.countsFor}/s`)} (--replicas-for; at most ${p.maxCount})` : ''}${p.stopBelow != null ? `; a count whose search breaks at or below ${p.stopBelow}/s stops there, not bisected or verified (--stop-below: it does not hold ${p.stopBelow}/s; unless the machine or the generator may have broken it)` : ''}`
    : p.deployments.join(', ');
  const need =
    p.values.need !== undefined
      ? `\nthen: the fewest replicas predicted to hold ${p.values.need}/s (--need), from the law fitted to the counts`
      : '';
  // (Said before the search, not found after it: a sweep of too few counts gets no fit.)
  const again = `${p.sweep ? `\nthe counts: ${START_RULE}` : ''}\nsearched again: a search whose limit was other programs' work (this machine busy, the deployment's processes waiting for a core), or whose drift could not be judged (other programs busy while its probe at rest answered slower), is run once more${p.sweep ? ', as is an outlier before the fit: a count that held less than a count below it, or, among five counts or more, the one the curve of the others misses by more than its own noise (its bracket, held to broke, widened by its width)' : ''}, ${againN} at most (the bound includes them)`;
  const noFit =
    p.sweep && p.sweep.length < MIN_POINTS
      ? `\nnote: ${p.sweep.length} replica count(s) give no fit of the scaling law (it needs ${MIN_POINTS} at least): each count's capacity is measured, but nothing is predicted`
      : '';
  const between = p.fresh
    ? `a fresh deployment before every level and verification run (--fresh-per-level: about ${budget.deployS(p)} s each)`
    : `after a level that breaks, the service must recover (${RECOVERY_RULE}; at most ${p.recoveryWaitS} s, --recovery-wait), and the last level that held is measured again before bisecting; the baseline is a probe after ${p.warmupS} s of warm-up`;
  return `capacity of ${p.word} on ${on} under ${p.slos.map((s) => s.text).join(' and ')}${p.scriptFlags ? `\nthe script read with ${p.scriptFlags}, as every level's run reads it` : ''}
${deployedText(p)}
each level: ${p.warmupS} s of warm-up, then ${p.holdFor(p.start)} s measured at ${p.start}/s (${p.holdFor(knee)} s at ${knee}/s); steps x2 from ${p.start}/s up to ${p.maxRate}/s (--max-rate, measured when reached), halving to ${p.floor}/s (--min-rate, measured when reached) when the first level breaks; ${p.precision >= 1 ? 'no bisection (--precision 100%: the first bracket, a rate that held and the double that broke)' : `bisection to ${p.precision * 100}%, or until two levels round to the same rate`}${p.recheck ? '; then the top of the bracket (the lowest rate that broke above the one held) measured once more (--recheck): held this time, the bisection goes on up to the next rate that broke, measured once more in turn, twice at most' : ''}; a level holds when every SLO holds and it kept up with its arrivals (answered>=${KEPT_UP.share * 100}%: that share of those launched in its window ended there, ${KEPT_UP.atLeast} requests of slack at least)
between levels: ${between}
verification: ${p.repetitions} run(s) at the rate found, each held for ${p.verifyHoldFor(p.start)} s${p.sweep ? ' at every count (one measure for every point fitted)' : ` at ${p.start}/s`} (--verify-hold), held when ${p.repetitions > 1 ? VERIFY_RULE : 'the run held'}; stepped down by ${Math.min(50, p.precision * 100)}% twice, then in growing steps, ${MAX_TRIES} tries at most${p.fresh ? '' : `; drift: ${DRIFT_RULE}`}
bounds: at most ${p.maxLevels} levels (--max-levels) and ${clock(p.timeLimitS)} (--time-limit) for each deployment's search
the machine: each CPU's speed read at the start and the end (one computation pinned to each in turn, ${CPU_READ_MS / 1000} s a CPU at most), said when they ran over ${SPREAD_PCT}% apart
expected: about ${clock(typical)} if the SLO breaks near ${knee}/s, at most ${clock(most)} (${searches} search(es) and ${againN} searched again, each to its bounds)${need}${again}${noFit}`;
}

// Your service's stores and set-up (--with...), as resolveDeployment reads them.
const storeFlags = (v) => ({
  with: v.with,
  'keep-data': v['keep-data'],
  'app-setup': v['app-setup'],
  'db-max-connections': v['db-max-connections'],
});

// A deployment of the search at replica count `count` (null: its own), as every part resolves
// it: the sweep's count, --workers, the stores' flags, the balancer, your service, TLS. (Its
// one definition: it was spelled out four times, in two commands.)
const recipeOf = (values, name, count, { app, tls }) =>
  resolveDeployment(name, countsOf(values, count, { ...storeFlags(values), balancer: values.balancer, app, tls }));

module.exports = {
  USAGE,
  HELP,
  COUNTS,
  RATES,
  COMMAND,
  FLAG_NAMES: COMMAND.names,
  plan,
  planText,
  planJson,
  kneeOf,
  recipeOf,
};
