'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { defineCommand, flag } = require('../terminal/flags');
const { contextOf, CONTEXT } = require('../topology/context');
const { assertClaimable, claimDir, kept } = require('../ownership/dirs');
const { runDirOf } = require('../results/run-dir');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { labError } = require('../../common/errors');
const { planPorts } = require('../topology/ports');
const { resolveDeployment, COURSE, names } = require('../topology/deployments');
const { BALANCERS } = require('../kinds');
const LocalRuntime = require('../runtime/local');
const { adoptStateDir } = require('../ownership/adopt');
const { pick } = require('../names');
const { ENDPOINTS, isPath, pathOf } = require('../../artillery/scenarios');
const { APP_FLAGS, APP_HELP, appOf } = require('../app/flags');
const { parseExpect } = require('../results/expect-status');
const { parseMethod, parseHeader, METHODS } = require('../scenario/request');
const { readScript } = require('../scenario/from-artillery');
const { clock } = require('../terminal/progress');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { serveLive } = require('../dashboard/live');
const describeMachine = require('../../common/machine');
const { parseSlo, samplesFor, assertSloNames } = require('./slo');
const { requestNames } = require('../scenario/model');
const { requestName } = require('../scenario/naming');
const { searchCapacity } = require('./search');
const { runLevel, judgeLevel } = require('./level');
const { verdictOf, perCore } = require('./verdict');
const { scalingOf, MIN_POINTS } = require('./scaling');
const { scalingText } = require('../report/scaling-text');
const { fitUsl, predict } = require('./usl');
const { parseCap, resolveCaps, checkCapsFit, describeCap } = require('../topology/caps');
const { buildGraph } = require('../topology/graph');
const { capacityHttpPage, capacityHttpBody, capacityText } = require('../report/capacity-http-html');
const { OUT_FLAGS, outArgs } = require('../out/flags');
const { appendStepSummary } = require('../out/step-summary');
const { NO_ANSWER } = require('../results/exit-code');

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
  --cap NODE=CPU[,MEMORY]  caps a node of every deployment searched, repeatable (as for deploy):
                     --cap replica=15% holds each replica to 15% of a core
How many replicas (docs/scaling.md):
  --replicas 1,2,3,4 the search at each replica count of one deployment (--deployments
                     replicated, the default, or multi-replicated with --workers), the Universal
                     Scalability Law fitted to the capacities (4 good points at least)
  --workers W        each replica's workers (multi-replicated)
  --predict N        predict the capacity at N replicas from the fit, then measure N to check it
  --need R           the fewest replicas predicted to hold R arrivals a second
  --start R          the first level's rate (default 50/s); each step doubles it
  --max-rate R       the highest rate tried (default 20000/s)
  --precision P      bisect until the bracket is within P (default 0.05)
  --repetitions N    verification runs at the rate found (default 3)
  --hold D           how long each level is measured (default: long enough for the SLO's
                     percentile, 20 answers beyond it, from 6 s to 20 s); after --warmup
  --warmup D         the first seconds of a level, left out of its figures (default 2s)
  --plan             print the search's expected duration and exit
  --run-dir DIR      the search's folder: run again with the same settings, a search there
                     that was cut short resumes from its last measured level
  --restart          with --run-dir: start its search over (its levels are deleted)
  --out otlp=URL, --out-interval D   each level's metrics to an OpenTelemetry collector (as
                     for scenario; docs/pipelines.md); with $GITHUB_STEP_SUMMARY set, the search's
                     table is appended there
  --results-dir DIR, --dashboard [PORT], --port-base P, --host H, --state-dir DIR, --json
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
    start: { type: 'number', above: 0, max: 1000000 },
    'max-rate': { type: 'number', above: 0, max: 1000000 },
    out: OUT_FLAGS.out,
    'out-interval': OUT_FLAGS['out-interval'],
    cap: flag.list(parseCap),
    replicas: { type: 'custom', parse: parseCounts, expected: 'replica counts, like 1,2,3,4 (each from 1 to 32)' },
    workers: flag.int(1, 64),
    predict: flag.int(1, 32),
    need: { type: 'number', above: 0, max: 10000000 },
    precision: { type: 'number', above: 0, max: 0.5 },
    repetitions: flag.int(1, 10),
    hold: flag.duration(),
    warmup: flag.duration(),
    plan: flag.bool(),
    restart: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
  },
});

const DEFAULT_SLOS = ['p99<200', 'errors<1%'];
// What one child scenario run costs beyond its load: Node, the run folder, the sampler's
// last flush, the report (measured here: 3-4 s).
const OVERHEAD_S = 4;

function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  if (help) return { help: true };
  const [word] = positionals;
  if (!word && !values.script) {
    throw labError('LAB_ERR_USAGE', `give an endpoint, a path of your service or --script FILE\n${USAGE}`);
  }
  if (word && values.script)
    throw labError('LAB_ERR_USAGE', '--script brings its own requests: give no endpoint with it');
  if (word && !isPath(word))
    pick(
      'endpoint',
      word,
      Object.keys(ENDPOINTS).filter((e) => !ENDPOINTS[e].participants),
    );
  const model = values.script ? readScript(values.script) : null;
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
    throw labError('LAB_ERR_USAGE', '--deployments names one twice');
  checkSweep(values, sweep, deployments);
  const app = appOf(values);
  // Checked now: each deployment resolves (a shell start with workers is refused here), and
  // its caps name nodes it has and fit this machine.
  const ctx0 = contextOf(values);
  for (const d of deployments) {
    for (const n of sweep ? [...sweep, ...(values.predict ? [values.predict] : [])] : [null]) {
      const dep = resolveDeployment(d, countsOf(values, n, { ...storeFlags(values), balancer: values.balancer, app }));
      checkCapsFit(resolveCaps(values.cap || [], buildGraph(dep, planPorts(ctx0.portBase, dep.replicas, dep.edges))));
    }
    const dep = resolveDeployment(d, countsOf(values, null, { ...storeFlags(values), balancer: values.balancer, app }));
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
  // The child runs' own words and flags.
  const words = values.script ? ['--script', values.script] : [word, 'endurance'];
  const extra = [];
  for (const f of ['method', 'body', 'expect-status']) if (values[f] !== undefined) extra.push(`--${f}`, values[f]);
  for (const h of values.header) extra.push('--header', h);
  if (values.script && ['method', 'body', 'header'].some((f) => given.has(f))) {
    throw labError(
      'LAB_ERR_USAGE',
      "--method, --body and --header shape a path's request; your script (--script) says its own",
    );
  }
  return {
    word: word ?? path.basename(values.script),
    sweep,
    model,
    words,
    extra,
    slos,
    deployments,
    app,
    values,
    ctx,
    start: values.start ?? 50,
    maxRate: values['max-rate'] ?? 20000,
    precision: values.precision ?? 0.05,
    repetitions: values.repetitions ?? 3,
    warmupS: values.warmup ?? 2,
    holdFor: (rate) => values.hold ?? Math.min(20, Math.max(6, Math.ceil(samplesFor(slos) / rate))),
  };
}

// --replicas and what goes with it, checked together once.
function checkSweep(values, sweep, deployments) {
  if (!sweep) {
    for (const f of ['predict', 'need', 'workers']) {
      if (values[f] !== undefined)
        throw labError('LAB_ERR_USAGE', `--${f} is for a sweep of replica counts: add --replicas 1,2,3,4`);
    }
    return;
  }
  if (deployments.length !== 1)
    throw labError('LAB_ERR_USAGE', '--replicas sweeps one deployment: give one with --deployments (replicated)');
  const d = resolveDeployment(deployments[0]);
  if (d.replicas < 2 && !['replicated', 'multi-replicated'].includes(d.name)) {
    throw labError(
      'LAB_ERR_USAGE',
      `--replicas sweeps a deployment of replicas: ${d.name} has one process; use --deployments replicated or multi-replicated`,
    );
  }
  if (values.predict !== undefined && sweep.includes(values.predict)) {
    throw labError(
      'LAB_ERR_USAGE',
      `--predict ${values.predict} is one of the counts measured: a prediction is checked at a count the fit did not see`,
    );
  }
  if ((values.predict !== undefined || values.need !== undefined) && sweep.length < MIN_POINTS) {
    throw labError(
      'LAB_ERR_USAGE',
      `--${values.predict !== undefined ? 'predict' : 'need'} needs a fit, and a fit needs ${MIN_POINTS} replica counts at least: --replicas ${sweep.join(',')} has ${sweep.length}`,
    );
  }
}

// A deployment's overrides at replica count n (null: its own), with --workers.
const countsOf = (values, n, o) => ({
  ...o,
  ...(n ? { replicas: n } : {}),
  ...(values.workers !== undefined ? { workers: values.workers } : {}),
});

// How long the search takes: per deployment, its deploy, the steps up to a break at `at`/s,
// about log2(1/precision) bisections, the verification runs (twice as long) and their teardown.
function expectedS(p, at) {
  let rate = p.start;
  const levels = [];
  while (rate <= Math.min(at, p.maxRate)) {
    levels.push(rate);
    rate *= 2;
  }
  levels.push(Math.min(rate, p.maxRate));
  const bisections = Math.ceil(Math.log2(1 / p.precision));
  const last = levels[levels.length - 1];
  const level = (r) => p.warmupS + p.holdFor(r) + OVERHEAD_S;
  const search = levels.reduce((a, r) => a + level(r), 0) + bisections * level(last);
  const verify = p.repetitions * (p.warmupS + 2 * p.holdFor(last) + OVERHEAD_S);
  return Math.round(15 + search + verify);
}

function planText(p) {
  const searches = p.sweep ? p.sweep.length + (p.values.predict ? 1 : 0) : p.deployments.length;
  const typical = searches * expectedS(p, 640);
  const worst = searches * expectedS(p, p.maxRate);
  const on = p.sweep
    ? `${p.deployments[0]} at ${p.sweep.join(', ')}${p.values.predict ? ` (then ${p.values.predict}, predicted first)` : ''} replicas`
    : p.deployments.join(', ');
  // (Said before the search, not found after it: a sweep of too few counts gets no fit.)
  const noFit =
    p.sweep && p.sweep.length < MIN_POINTS
      ? `\nnote: ${p.sweep.length} replica count(s) give no fit of the scaling law (it needs ${MIN_POINTS} at least): each count's capacity is measured, but nothing is predicted`
      : '';
  return `capacity of ${p.word} on ${on} under ${p.slos.map((s) => s.text).join(' and ')}
each level: ${p.warmupS} s of warm-up, then ${p.holdFor(p.start)} s measured at ${p.start}/s (${p.holdFor(640)} s at 640/s); steps x2 from ${p.start}/s, bisection to ${p.precision * 100}%, ${p.repetitions} verification runs
expected: about ${clock(typical)} if the SLO breaks near 640/s, at most ${clock(worst)} (to ${p.maxRate}/s)${noFit}`;
}

// One deployment: searched level by level, verified, taken down. It is deployed when a level
// must be measured: a level its folder already holds, whole, from a search that was cut short
// (the same settings, --run-dir), is read back instead, so a resumed search replays its own
// steps up to where it stopped (the search is a pure function of its levels: ./search.js).
async function searchDeployment(p, name, dir, log, seen, count = null) {
  const deployment = resolveDeployment(
    name,
    countsOf(p.values, count, { ...storeFlags(p.values), balancer: p.values.balancer, app: p.app }),
  );
  // (A sweep's counts each their own name: replicated x3.)
  const tag = count ? `${name} x${count}` : name;
  const ports = planPorts(p.ctx.portBase, deployment.replicas, deployment.edges);
  const caps = resolveCaps(p.values.cap || [], buildGraph(deployment, ports));
  const runtime = new LocalRuntime({ stateDir: p.ctx.stateDir, host: p.ctx.host, log });
  runtime.assertNotUp();
  const release = own(() => runtime.down());
  let state = null;
  const up = async () => {
    log(`${tag}: deploying ${deployment.label}`);
    for (const [node, cap] of Object.entries(caps)) log(`${tag}: capping ${node}: ${describeCap(cap)}`);
    state = await runtime.up(deployment, ports, { caps, probe: !p.values['no-probe'] });
  };
  const context = [
    '--state-dir',
    p.ctx.stateDir,
    '--port-base',
    String(p.ctx.portBase),
    '--host',
    p.ctx.host,
    ...outArgs(p.values),
  ];
  let n = 0;
  const measure = async (rate, holdS = p.holdFor(rate)) => {
    const o = {
      words: p.words,
      rate,
      warmupS: p.warmupS,
      holdS,
      dir: path.join(dir, count ? `${name}-x${count}` : name, `${String(++n).padStart(2, '0')}-${rate}`),
      slos: p.slos,
      expect: parseExpect(p.values['expect-status']),
      extra: p.extra,
      context,
    };
    noteWritten(dir, path.relative(dir, o.dir).split(path.sep)[0]);
    const before = measuredBefore(o);
    if (before) return before;
    if (!state) await up();
    return runLevel({ ...o, target: state.url });
  };
  const found = await searchCapacity(measure, {
    start: p.start,
    maxRate: p.maxRate,
    precision: p.precision,
    onLevel: (l) => {
      seen.push({ deployment: tag, ...(count ? { replicas: count } : {}), ...l });
      log(
        `${tag}: ${l.rate}/s${l.resumed ? ' (measured before)' : ''} -> ${l.answeredPerS}/s answered, p99 ${l.latencyMs?.p99 ?? '-'} ms, errors ${l.errorsPct ?? '-'}%: ${
          l.generatorBound
            ? 'the generator was the limit'
            : l.ok
              ? 'held'
              : `broke ${l.thresholds
                  .filter((t) => !t.ok)
                  .map((t) => t.text)
                  .join(', ')}`
        }`,
      );
    },
  });
  const verification = found.held ? await verify(p, found, measure, tag, log) : null;
  if (state) await runtime.down();
  release();
  const v = verdictOf(tag, deployment, found, verification, p);
  // (A sweep's row names its count: the preset's own count leaves it out of the label.)
  return count ? { ...v, label: `${tag}: ${deployment.label}`, replicas: count } : v;
}

// A level measured by an earlier run of this search, read back from its folder when it is
// whole (its summary says completed); a level cut short is removed, to be measured again.
function measuredBefore(o) {
  const file = path.join(o.dir, 'summary.json');
  if (!fs.existsSync(o.dir)) return null;
  let summary = null;
  try {
    summary = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // cut short before its summary
  }
  // (A level nothing answered is whole too: it measured a deployment that answered nothing.)
  const whole = summary?.status === 'completed' || String(summary?.status).startsWith(NO_ANSWER);
  if (whole && fs.existsSync(path.join(o.dir, 'records.jsonl'))) {
    return { ...judgeLevel(summary, o), resumed: true };
  }
  fs.rmSync(o.dir, { recursive: true, force: true });
  return null;
}

// Your service's stores and set-up (--with...), as resolveDeployment reads them.
const storeFlags = (v) => ({
  with: v.with,
  'keep-data': v['keep-data'],
  'app-setup': v['app-setup'],
  'db-max-connections': v['db-max-connections'],
});

// What makes two searches the same search: a folder holding another is not resumed.
function settingsOf(p) {
  return {
    words: p.words,
    extra: p.extra,
    slos: p.slos.map((t) => t.text),
    deployments: p.deployments,
    app: p.app ? p.app.dir : null,
    with: p.values.with ?? null,
    appCmd: p.values['app-cmd'] ?? null,
    balancer: p.values.balancer ?? null,
    start: p.start,
    maxRate: p.maxRate,
    precision: p.precision,
    repetitions: p.repetitions,
    warmupS: p.warmupS,
    hold: p.values.hold ?? null,
    caps: p.values.cap ?? [],
    replicas: p.sweep,
    workers: p.values.workers ?? null,
    predict: p.values.predict ?? null,
  };
}

// The search's folder: a new one, or --run-dir. A --run-dir that holds a search is resumed
// when its settings are these, refused when they are not (it once deleted the earlier search
// without a word), and started over with --restart, which deletes only what the search wrote
// (search.json lists it: a user's notes beside it stay). A folder of the lab's that holds
// something else (a scenario run) is refused: it was once reset, its run deleted.
const SEARCH_FILE = 'search.json';
function openSearchDir(p, log) {
  const dir = runDirOf(p.values, `capacity-${p.word.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'root'}`);
  const fresh = { settings: settingsOf(p), written: [SEARCH_FILE] };
  if (!p.values['run-dir']) {
    if (p.values.restart) throw labError('LAB_ERR_USAGE', '--restart starts over the search of a --run-dir: give one');
    claimDir(dir, 'the run folder');
  } else {
    claimDir(dir, '--run-dir');
    const before = readJsonFile(path.join(dir, SEARCH_FILE));
    if (!before) {
      const held = fs.readdirSync(dir).filter((n) => !kept(n));
      if (held.length) throw labError('LAB_ERR_NOT_A_SEARCH', dir, whatFolder(dir, held));
    } else if (!p.values.restart) {
      const now = settingsOf(p);
      const differ = Object.keys(now).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(before.settings?.[k]));
      if (differ.length) {
        throw labError(
          'LAB_ERR_USAGE',
          `--run-dir ${dir} holds a capacity search with other settings (${differ.join(', ')}): add --restart to delete it and start over, or give another --run-dir`,
        );
      }
      log(`resuming the search in ${dir}: the levels it measured are read back, the rest measured`);
      writeSearch(dir, { ...fresh, written: [...new Set([...(before.written || writtenBy(before)), SEARCH_FILE])] });
      return dir;
    } else {
      const gone = removeWritten(dir, before.written || writtenBy(before));
      log(`--restart: deleted the earlier search's ${gone.length} file(s) and folder(s) in ${dir}`);
    }
  }
  writeSearch(dir, fresh);
  return dir;
}

const writeSearch = (dir, data) => fs.writeFileSync(path.join(dir, SEARCH_FILE), `${JSON.stringify(data, null, 2)}\n`);

// Notes a top-level entry of the search's folder as the search's own, before it is written.
function noteWritten(dir, name) {
  const data = readJsonFile(path.join(dir, SEARCH_FILE));
  if (!data || data.written?.includes(name)) return;
  writeSearch(dir, { ...data, written: [...(data.written || []), name] });
}

// What a search of these settings writes, for a search.json from before the list was kept.
function writtenBy(search) {
  const s = search.settings || {};
  const counts = s.replicas ? [...s.replicas, ...(s.predict ? [s.predict] : [])] : [null];
  const folders = (s.deployments || []).flatMap((d) => counts.map((n) => (n ? `${d}-x${n}` : d)));
  return [SEARCH_FILE, 'capacity.json', 'capacity.html', 'prediction.json', ...folders];
}

// Deletes the entries listed (names in the folder, never a path out of it); returns them.
function removeWritten(dir, names) {
  const gone = [];
  for (const name of names) {
    if (typeof name !== 'string' || !name || name.includes('/') || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (!fs.existsSync(p)) continue;
    fs.rmSync(p, { recursive: true, force: true });
    gone.push(name);
  }
  return gone;
}

// What a folder that is not a search holds, in words.
function whatFolder(dir, held) {
  if (held.includes('summary.json')) {
    const s = readJsonFile(path.join(dir, 'summary.json'));
    return `a run of ${s?.endpoint ?? '?'} ${s?.scenario ?? ''}${s?.startedAt ? ` from ${s.startedAt}` : ''} (its summary.json, report and records)`;
  }
  if (held.includes('study.json') || held.includes('runs')) return 'a study';
  return `${held.length} file(s) and folder(s) (${held.slice(0, 4).join(', ')}${held.length > 4 ? ', ...' : ''})`;
}

function readJsonFile(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

// Longer runs at the rate found, `repetitions` times; a rate whose verification does not
// hold every time is stepped down by the precision and verified again, at most twice.
async function verify(p, found, measure, name, log) {
  let rate = found.held.rate;
  const attempts = [];
  for (let tries = 0; tries < 3; tries++) {
    const runs = [];
    for (let i = 0; i < p.repetitions; i++) runs.push(await measure(rate, 2 * p.holdFor(rate)));
    const ok = runs.every((r) => r.ok);
    attempts.push({ rate, ok, runs });
    log(`${name}: verification at ${rate}/s: ${runs.filter((r) => r.ok).length} of ${runs.length} held`);
    if (ok) break;
    rate = Math.round(rate * (1 - p.precision) * 10) / 10;
  }
  return attempts;
}

// The scaling of the counts searched so far (the live page's, and an interrupted sweep's).
function scalingNow(p, results) {
  const entry = buildGraph(resolveDeployment(p.deployments[0], { balancer: p.values.balancer })).entry;
  return scalingOf(
    results.map((v) => ({ replicas: v.replicas, verdict: v })),
    {
      deployment: p.deployments[0],
      entry,
      predictN: p.values.predict ?? null,
      needRate: p.values.need ?? null,
    },
  );
}

// capacity --replicas: the search at each count, the law fitted, a prediction at --predict N
// said before N is measured (the log keeps it), then N searched to check it.
async function sweepReplicas(p, dir, log, seen, results) {
  const name = p.deployments[0];
  for (const n of p.sweep) results.push(await searchDeployment(p, name, dir, log, seen, n));
  if (p.values.predict) {
    const good = scalingNow({ ...p, values: { ...p.values, predict: null, need: null } }, results);
    if (good.fit) {
      const f = fitUsl(good.points.filter((x) => !x.leftOut).map((x) => ({ replicas: x.replicas, rate: x.maxRate })));
      const pr = predict(f, p.values.predict);
      const iv = pr.low !== null ? ` (95%: ${Math.round(pr.low)} to ${Math.round(pr.high)})` : '';
      log(
        `predicted before measuring: ${p.values.predict} replicas hold ${Math.round(pr.rate)}/s${iv}; measuring them`,
      );
      // Written before the measurement starts: the prediction's own record, with its time.
      noteWritten(dir, 'prediction.json');
      fs.writeFileSync(
        path.join(dir, 'prediction.json'),
        `${JSON.stringify({ at: new Date().toISOString(), ...pr, fit: { sigma: f.sigma, kappa: f.kappa, lambda: f.lambda } }, null, 2)}\n`,
      );
    } else log(`no prediction for ${p.values.predict} replicas: ${good.fitRefused}; measuring them anyway`);
    results.push(await searchDeployment(p, name, dir, log, seen, p.values.predict));
  }
  return scalingNow(p, results);
}

async function httpCapacity(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };
  if (p.values.plan) return { stdout: planText(p) };
  holdDir(p.ctx.stateDir, '--state-dir');
  adoptStateDir(p.ctx.stateDir);
  const dir = openSearchDir(p, log);
  const started = Date.now();
  const seen = [];
  const results = [];
  let scaling = null;
  const out = () => ({
    what: p.word,
    app: p.app ? p.app.name : null,
    slos: p.slos.map((s) => s.text),
    settings: {
      start: p.start,
      maxRate: p.maxRate,
      precision: p.precision,
      repetitions: p.repetitions,
      warmupS: p.warmupS,
    },
    levels: seen,
    deployments: results,
    best: perCore(results),
    ...(p.sweep ? { scaling: scaling ?? scalingNow(p, results) } : {}),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    machine: describeMachine(),
    cores: os.cpus().length,
  });
  const live = await serveLive({
    port: p.values.dashboard,
    host: p.ctx.host,
    title: `capacity of ${p.word}`,
    log,
    interrupted: 'the capacity search was interrupted',
    render: () => ({ html: String(capacityHttpBody(out())), status: `${seen.length} level(s) measured` }),
  });
  log(planText(p));
  if (p.sweep) scaling = await sweepReplicas(p, dir, log, seen, results);
  else for (const name of p.deployments) results.push(await searchDeployment(p, name, dir, log, seen));
  const result = out();
  noteWritten(dir, 'capacity.json');
  noteWritten(dir, 'capacity.html');
  fs.writeFileSync(path.join(dir, 'capacity.json'), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'capacity.html'), capacityHttpPage(result));
  result.resultsDir = dir;
  if (live)
    await live.end(
      String(capacityHttpBody(result)),
      `the search has ended; its page: ${path.join(dir, 'capacity.html')}`,
    );
  const exitCode = results.some((r) => r.maxRate === null) ? 1 : 0;
  // A CI job's page: the search's table, in a code block ($GITHUB_STEP_SUMMARY).
  appendStepSummary(
    `### Capacity of ${result.what}\n\n\`\`\`\n${capacityText(result)}${result.scaling ? `\n\n${scalingText(result.scaling)}` : ''}\n\`\`\`\n\nPage: \`${path.join(dir, 'capacity.html')}\`\n\n`,
  );
  if (p.values.json) return { stdout: JSON.stringify(result, null, 2), exitCode };
  const scaled = result.scaling ? `\n\n${scalingText(result.scaling)}` : '';
  return { stdout: `${capacityText(result)}${scaled}\n\nResults: ${dir}`, exitCode };
}

httpCapacity.usage = USAGE;
httpCapacity.plan = plan;
httpCapacity.openSearchDir = openSearchDir;
module.exports = httpCapacity;
