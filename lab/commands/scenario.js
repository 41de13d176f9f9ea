'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ENDPOINTS, SCENARIOS, SIGNAL, REQUEST_TIMEOUT_S, endpointOf, isPath } = require('../../artillery/scenarios');
const { signalStages } = require('../../artillery/stages');
const { signalSummary } = require('../results/signal-summary');
const { ensureFdsFor } = require('../runtime/fd-limit');
const { buildScript, toYaml, pathOf } = require('../../artillery/script');
const { requestOf, parseMethod, parseHeader, METHODS } = require('../scenario/request');
const { parseExpect } = require('../results/expect-status');
const { allNames } = require('../topology/deployments');
const { pick } = require('../names');
const { runtimeFor } = require('../runtime');
const { DEPLOY_FLAGS, KIND_HELP, planDeploy } = require('./deploy');
const { GENERATORS } = require('../generators');
const { startOnLoadNodes } = require('../generators/load-nodes');
const { warmCache } = require('../generators/warm-cache');
const startMonitoring = require('../monitoring');
const deploymentNodes = require('../runtime/nodes');
const { sleep } = require('../ownership/procs');
const { summarize, closedLoopCpu } = require('../results/summary');
const { parseThreshold, evaluate } = require('../results/thresholds');
const { nodeTable } = require('../monitoring/node-table');
const nodeProbe = require('../monitoring/node-probe');
const renderSummary = require('../results/render-summary');
const { createProgress } = require('../cli/progress');
const describeMachine = require('../../common/machine');
const { defineCommand, flag, CONTEXT } = require('../cli/flags');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { startDashboard } = require('../dashboard/server');
const { liveFeed } = require('../dashboard/live');
const { liveBody } = require('../dashboard/live-body');
const loadRun = require('../report/load-run');
const { assertClaimable, claimDir, resetDir } = require('../ownership/dirs');
const { runDirOf } = require('../results/run-dir');
const { adoptStateDir } = require('../ownership/adopt');
const { own, interrupted } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { labError, downHint } = require('../../common/errors');
const { identify } = require('../ownership/identity');

const USAGE = `usage: npm run scenario -- <endpoint> <scenario> <deployment> [options]
       npm run scenario -- <endpoint> <scenario> --target URL    (a system already up)
  endpoints:   ${Object.keys(ENDPOINTS).join(', ')}, or a path of your service (/api/items)
  scenarios:   ${Object.keys(SCENARIOS).join(', ')}
  deployments: ${allNames().join(', ')}
options:
  --app DIR        your own Node service in place of the lab's (see npm run deploy -- --help)
  --method M, --body TEXT|@FILE, --header 'Name: value' (repeatable)
                   the request each arrival sends (default GET; a body makes it POST, JSON
                   bodies go as application/json)
  --expect-status S  which statuses succeed (default: below 400), e.g. 200,404 or 2xx,404;
                   every other answer counts as failed, in errors and thresholds
  --generator G    artillery (default, the course's tool), fast (the lab's open loop: same
                   phases, µs latencies, ~10x less CPU) or closed (N connections, each sending
                   when answered, for the scenario's length or --duration / --requests)
  --keepalive      fast/closed: reuse connections (default: a new one per request, as Artillery)
  --warm-cache     asset: ask every object once through the entry before measuring (CPU caps
                   lifted meanwhile, memory limits kept), so a short run is not a cold-cache run
  --connections N  closed: concurrent connections (default 10)
  --requests M     closed: stop after M requests
  --dashboard [PORT]  a live page of the run on 127.0.0.1:PORT (default 5665; --host to change
                   the address; LAB_DASHBOARD=1 too), its URL printed at the start
  --load-nodes N   fast/closed: run the generator as N tasks of the swarm (one per node while
                   it has that many), its schedule shared as between threads, results merged
                   exactly; needs --engine swarm (or --target with DOCKER_HOST on a swarm)
  --ensure EXPR    fail the run (exit 1) unless EXPR holds; repeatable: p99<500, errors<1%,
                   rate>=0.99, rps>=100 (metrics p50 p75 p90 p95 p99 max mean errors rate rps)
  --scale F        multiply every duration (e.g. 0.1 for a smoke run)
  --rate-scale F   multiply every arrival rate
  --duration D     endurance length (seconds, or 90s, 10m, 1h); with closed, any scenario's
  --target URL     run against a system that is already up (no deploy)
  --engine E       where the deployment runs: local (default: processes + nginx), compose (containers)
                   or swarm (a stack on the swarm DOCKER_HOST names)
  --keep           leave the deployment up afterwards
  --print          print the Artillery script and exit
  --json           print summary.json to stdout
  --heavy-ms MS    how long /heavy burns the CPU (default 5000, as in the course)
  --work-n N       work: how many rounds of 10,000 steps each request asks (default 100, 3-5 ms
                   of a core here; fewer make the servers' work lighter)
  --no-statsd      run without StatsD (and so without Graphite)
  --no-graphite    do not start or feed a Graphite
  --graphite H:P   feed the carbon at H:P instead of starting one
  --run-name NAME  the run's name under lab. in StatsD/Graphite (default: the results folder's);
                   with the compose stack's Grafana, use its LAB_RUN (default compose-<deployment>)
  --force          allow more than 8 service processes per core
${KIND_HELP}
  --method M       how the balancer picks a replica: round-robin (default), least_conn, hash
                   (consistent: on the URI at L7, the client's address at L4)
  --edges N        caching edges between the balancer and the replicas (the cdn deployment has 4)
  --cap NODE=CPU[/PERIOD][,MEMORY]  caps a node of the deployment, repeatable (see npm run deploy -- --help)
  --placement P    on a swarm of several nodes: spread, apart, manager-only (npm run deploy -- --help)
  --replicas N, --workers N, --key KEY, --port-base P, --host H, --state-dir DIR,
  --results-dir DIR, --run-dir DIR (a new or empty folder, or one the lab made)`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 1, max: 3, name: 'word' },
  flags: {
    ...CONTEXT,
    ...DEPLOY_FLAGS,
    ...DASHBOARD_FLAGS,
    generator: flag.enum(Object.keys(GENERATORS), 'generator'),
    keepalive: flag.bool(),
    'warm-cache': flag.bool(),
    connections: flag.int(1, 10000),
    requests: flag.int(1, 100000000),
    'generator-workers': flag.int(1, 64),
    'load-nodes': flag.int(1, 64),
    ensure: flag.list(parseThreshold),
    scale: flag.factor(),
    'rate-scale': flag.factor(),
    duration: flag.duration(),
    target: flag.url(),
    keep: flag.bool(),
    'run-name': flag.pattern(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, - or _'),
    print: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    'heavy-ms': flag.int(1, 60000),
    'work-n': flag.int(1, 100000),
    'no-statsd': flag.bool(),
    'no-graphite': flag.bool(),
    graphite: flag.pattern(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'HOST or HOST:PORT'),
    method: { type: 'custom', parse: parseMethod, expected: `one of ${METHODS.join(', ')}` },
    body: flag.string(),
    header: flag.list(parseHeader),
    'expect-status': { type: 'custom', parse: parseExpect, expected: 'statuses or ranges, like 200,404 or 2xx' },
  },
});

// The words of the command line: <endpoint> <scenario> <deployment>; with --target the
// deployment is not needed, and a --target with a path stands for the endpoint (the path is
// kept, never dropped: a run once measured /ping when told /api/items).
function wordsOf(positionals, values) {
  const usage = (text) => labError('LAB_ERR_USAGE', `${text}\n${USAGE}`);
  const target = values.target ? new URL(values.target) : null;
  const targetPath = target && (target.pathname !== '/' || target.search) ? `${target.pathname}${target.search}` : null;
  if (!target) {
    if (positionals.length !== 3) throw usage('expected <endpoint> <scenario> <deployment>');
    const [endpoint, scenario, deploymentName] = positionals;
    return { endpoint, scenario, deploymentName };
  }
  let [endpoint, scenario, deploymentName = null] = positionals;
  if (positionals.length === 1) {
    if (!targetPath) throw usage('expected <endpoint> <scenario> (or a --target URL whose path is the endpoint)');
    [scenario, endpoint] = [positionals[0], targetPath];
  }
  if (targetPath) {
    const asked = endpointOf(endpoint)?.path;
    if (asked !== undefined && asked !== targetPath) {
      throw labError(
        'LAB_ERR_USAGE',
        `--target ${values.target} names the path ${targetPath}, and the endpoint ${endpoint} asks ${asked}: give the path once (npm run scenario -- ${scenario} --target ${values.target})`,
      );
    }
  }
  return { endpoint, scenario, deploymentName };
}

// Stage 1, plan: the whole command line checked before anything is created, started or
// deleted, and turned into what the later stages need.
function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  if (help) return { help: true };
  const { endpoint, scenario, deploymentName } = wordsOf(positionals, values);
  if (!isPath(endpoint)) pick('endpoint', endpoint, ENDPOINTS);
  pick('scenario', scenario, SCENARIOS);
  const refuse = (text) => {
    throw labError('LAB_ERR_USAGE', text);
  };
  // The signal endpoint has participants, not requests: only the signal generator drives it,
  // and that generator drives nothing else.
  const signal = Boolean(endpointOf(endpoint).participants);
  if (signal && (values.app || ['method', 'body', 'header'].some((f) => given.has(f)))) {
    refuse(
      "the signal endpoint is the lab's own WebSocket signaling: --app, --method, --body and --header are for HTTP",
    );
  }
  if (values.app) {
    for (const f of ['heavy-ms', 'work-n', 'key']) {
      if (given.has(f)) refuse(`--${f} is for the lab's own service, not --app`);
    }
  }
  const generator = values.generator ?? (signal ? 'signal' : 'artillery');
  if (signal && generator !== 'signal') refuse('the signal endpoint runs with --generator signal (the default for it)');
  if (!signal && generator === 'signal') refuse('--generator signal is for the signal endpoint');
  if (signal && values.print) refuse('the signal endpoint has no Artillery script to print');
  if (values['warm-cache'] && !ENDPOINTS[endpoint]?.objects) {
    refuse(`--warm-cache is for endpoints of many cacheable objects (asset), not ${endpoint}`);
  }
  if (values['work-n'] !== undefined && endpoint !== 'work')
    refuse(`--work-n is for the work endpoint, not ${endpoint}`);
  if (signal && ['connections', 'requests', 'keepalive'].some((f) => given.has(f))) {
    refuse('--connections, --requests and --keepalive are for HTTP endpoints; signal has participants (--rate-scale)');
  }
  const closed = GENERATORS[generator].loop === 'closed' && !signal;
  // A flag the run would ignore is a mistake worth saying, not a silent no-op.
  if (given.has('duration') && !closed && !SCENARIOS[scenario].usesDuration) {
    refuse(
      `--duration sets the length of the endurance scenario (or of a closed loop); ${scenario} has fixed phases (use --scale to stretch or shrink them)`,
    );
  }
  for (const f of ['connections', 'requests']) if (given.has(f) && !closed) refuse(`--${f} is for --generator closed`);
  if (given.has('rate-scale') && closed)
    refuse('--rate-scale sets arrival rates: a closed loop has none (--connections)');
  if (generator === 'artillery' && (values.keepalive || given.has('generator-workers'))) {
    refuse('--keepalive and --generator-workers are for --generator fast or closed');
  }
  if (values.balancer === 'none' && generator === 'artillery') {
    refuse('--balancer none needs a generator that spreads over the replicas itself: --generator fast or closed');
  }
  if (values.balancer === 'none' && values.target)
    refuse('--balancer none deploys; --target is for a system already up');
  if (values.target && values.app) refuse('--app deploys your service; --target is for a system already up: give one');
  const target = values.target ? new URL(values.target).origin : null;
  const { deployment, ctx, ports, caps, runtime, placement } = planDeploy(values, deploymentName ?? 'single');
  // The request every arrival sends (lab/scenario/request.js); the lab's own endpoints keep
  // their path (and query) and may change the method, headers or body too.
  const request = requestOf({
    path: pathOf(endpoint, values['work-n'] !== undefined ? { n: values['work-n'] } : null),
    method: values.method,
    body: values.body,
    headers: values.header,
  });
  const loadNodes = values['load-nodes'] ?? null;
  if (loadNodes !== null) {
    if (!['fast', 'closed'].includes(generator))
      refuse("--load-nodes spreads the lab's own generator: --generator fast or closed");
    // (LAB_LOAD_NODES=local: the nodes are processes of this machine, to try the coordination.)
    if (!target && runtime !== 'swarm' && process.env.LAB_LOAD_NODES !== 'local') {
      refuse(
        `--load-nodes runs the generator as tasks of a swarm, and --engine ${runtime} has none: deploy with --engine swarm (the lab's VM cluster: npm run cluster -- up, then eval "$(npm run -s cluster -- env)"), or give --target with DOCKER_HOST naming a swarm manager`,
      );
    }
    if (values.balancer === 'none')
      refuse('--load-nodes: the nodes reach the deployment through its entry, and --balancer none has none');
  }
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  const options = { scale: values.scale ?? 1, rateScale: values['rate-scale'] ?? 1, durationS: values.duration };
  if (signal && values.balancer === 'none')
    refuse('--balancer none: the signal generator reaches one address; choose a balancer, or the single deployment');
  // nginx is given room for the held connections: either worker may accept them all.
  const participants = signal ? Math.max(...signalStages(scenario, options).map((st) => st.target)) : 0;
  // Proxies are given room for the held connections (nginx: either worker may accept them all).
  const connections = participants * 2 + 1024 > 8192 ? participants * 2 + 1024 : undefined;
  const serviceEnv = values['heavy-ms'] !== undefined ? { HEAVY_MS: String(values['heavy-ms']) } : {};
  const thresholds = [...(SCENARIOS[scenario].ensure?.[endpoint] || []).map(parseThreshold), ...values.ensure];
  const query = values['work-n'] !== undefined ? { n: values['work-n'] } : null;
  return {
    query,
    request,
    expect: values['expect-status'] ?? parseExpect(),
    endpoint,
    scenario,
    deployment,
    runtime,
    placement,
    options,
    target,
    ctx,
    ports,
    caps,
    values,
    serviceEnv,
    generator,
    loadNodes,
    closed,
    signal,
    connections,
    participants,
    thresholds,
  };
}

// Stage 2, run folder: the lab's own (new, or one it made), with the machine it runs on.
function runFolder(p) {
  const { endpoint, scenario, deployment, values } = p;
  // --run-dir is emptied only when the lab made it (lab/ownership/dirs.js).
  // (A path endpoint names its folder by its words: /api/items -> api-items.)
  const what = isPath(endpoint) ? endpoint.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'root' : endpoint;
  const dir = runDirOf(values, `${what}-${scenario}-${p.target ? 'external' : deployment.name}`);
  // From here on every process started carries the state folder's token (lab/ownership).
  adoptStateDir(p.ctx.stateDir);
  if (values['run-dir']) resetDir(dir, '--run-dir');
  else claimDir(dir, 'the run folder');
  const file = (name) => path.join(dir, name);
  const writeJson = (name, data) => fs.writeFileSync(file(name), `${JSON.stringify(data, null, 2)}\n`);
  const machine = describeMachine({ artillery: require('artillery/package.json').version });
  writeJson('machine.json', machine);
  const runId = values['run-name'] ?? path.basename(dir).replace(/[^A-Za-z0-9_-]/g, '_');
  return { dir, file, writeJson, machine, prefix: `lab.${runId}` };
}

// Stage 3, monitoring: first, so the replicas start with StatsD's address; stopped last.
async function monitoringStage(p, run, log) {
  const { values, ctx } = p;
  const monitoring = await startMonitoring({
    resultsDir: run.dir,
    graphiteDir: path.join(ctx.stateDir, 'graphite'),
    host: ctx.host,
    ports: p.ports,
    prefix: run.prefix,
    statsd: !values['no-statsd'] && process.env.LAB_STATSD !== 'off',
    graphite: values['no-graphite'] ? 'off' : (values.graphite ?? process.env.LAB_GRAPHITE ?? 'auto'),
  });
  own(() => monitoring.stop());
  for (const [name, src] of Object.entries(monitoring.sources)) {
    if (!src.ok) log(`monitoring: no ${name}: ${src.reason}`);
  }
  return monitoring;
}

// Stage 4, deployment: up (owned until it is, even with --keep), unless a target is given.
async function deploymentStage(p, run, runtime, monitoring, log) {
  const { deployment, values } = p;
  let state = null;
  let target = p.target;
  if (runtime) {
    const releaseDeployment = own(() => runtime.down().then(() => log('deployment stopped')));
    log(`deploying ${deployment.label}${p.runtime === 'local' ? '' : ` on ${p.runtime}`}`);
    state = await runtime.up(deployment, p.ports, {
      caps: p.caps,
      bbox: { key: values.key ?? '' },
      statsd: monitoring.statsd,
      serviceEnv: { ...p.serviceEnv, STATSD_PREFIX: `${run.prefix}.service` },
      connections: p.connections,
      placement: p.placement,
    });
    target = state.url;
    // The entry's rendered config beside the results (nginx.conf, haproxy.cfg, Caddyfile).
    const conf = state.entryConf || state.nginxConf;
    if (conf) fs.copyFileSync(conf, run.file(path.basename(conf)));
    if (values.keep) {
      releaseDeployment();
      log(`the deployment stays up at ${target} (${downHint(p.ctx.stateDir)} to stop it)`);
    }
  }
  run.writeJson(
    'deployment.json',
    state
      ? {
          ...deployment,
          engine: p.runtime,
          url: state.url,
          ports: state.ports,
          processes: state.processes,
          graph: state.graph,
          caps: state.caps,
        }
      : { target },
  );
  return { state, target };
}

// The generator's plan: the scenario's phases (open loop), or one phase of the scenario's
// length with N connections (closed loop).
function generatorPlan(p, target, run, monitoring) {
  if (p.signal) {
    const stages = signalStages(p.scenario, p.options);
    return {
      target,
      name: p.endpoint,
      stages,
      ...SIGNAL.participant,
      timeoutMs: REQUEST_TIMEOUT_S * 1000,
      // The progress line and the summary read phases: one per stage.
      phases: stages.map((st) => ({ name: st.name, duration: st.duration })),
    };
  }
  const script = buildScript({
    endpoint: p.endpoint,
    scenario: p.scenario,
    target,
    query: p.query,
    request: p.request,
    ...p.options,
  });
  fs.writeFileSync(run.file('script.yml'), toYaml(script, [`${p.endpoint} ${p.scenario} against ${target}`]));
  const common = {
    target,
    path: p.request.path,
    objects: endpointOf(p.endpoint).objects || null,
    request: { method: p.request.method, headers: p.request.headers, body: p.request.body },
    timeoutMs: REQUEST_TIMEOUT_S * 1000,
    timeoutS: REQUEST_TIMEOUT_S,
    keepalive: p.values.keepalive,
    workers: p.values['generator-workers'],
    name: p.endpoint,
  };
  if (!p.closed) {
    return {
      ...common,
      phases: script.config.phases,
      statsd: monitoring.statsd ? { ...monitoring.statsd, prefix: `${run.prefix}.artillery` } : null,
    };
  }
  const scripted = script.config.phases.reduce((a, ph) => a + ph.duration, 0);
  const durationS = p.values.duration ?? (p.values.requests ? undefined : scripted);
  const connections = p.values.connections ?? 10;
  return {
    ...common,
    connections,
    requests: p.values.requests,
    durationMs: durationS !== undefined ? durationS * 1000 : undefined,
    phases: [{ name: `closed loop, ${connections} connection(s)`, duration: durationS ?? scripted }],
  };
}

// Stage 5, generation: the generator runs, its records stream to records.jsonl (kept when
// the run is cut short) and to the progress listener.
// extra: { runtimeEnv, onLoadNodes(samples), dashboardUrl } (load nodes and the live page).
async function generationStage(p, run, genPlan, target, monitoring, nodesOf, log, extra = {}) {
  const { runtimeEnv, onLoadNodes, dashboardUrl } = extra;
  const recordsFile = run.file('records.jsonl');
  fs.writeFileSync(recordsFile, '');
  const totalS = genPlan.phases.reduce((a, ph) => a + ph.duration, 0);
  const progress = createProgress({
    phases: genPlan.phases,
    totalS,
    closed: p.closed || p.signal,
    participants: p.signal,
    requests: genPlan.durationMs === undefined && genPlan.requests ? genPlan.requests : null,
    suffix: dashboardUrl ? `live ${dashboardUrl}` : '',
  });
  const generator = GENERATORS[p.generator];
  log(
    `running ${p.endpoint} ${p.scenario} against ${target} with ${p.generator} ${
      genPlan.durationMs === undefined && genPlan.requests
        ? `until ${genPlan.requests} requests are answered`
        : `for ${totalS} s`
    } (${genPlan.phases.length} phase(s))`,
  );
  const startedAt = new Date().toISOString();
  // What the run is, before its load starts: a run killed with SIGKILL has no summary, and
  // `report` rebuilds one from this and its records (lab/results/rebuild.js).
  run.writeJson('run.json', {
    endpoint: p.endpoint,
    scenario: p.scenario,
    deployment: extra.deployment ?? null,
    target,
    phases: genPlan.phases,
    generator: { name: p.generator, loop: GENERATORS[p.generator].loop },
    thresholds: p.thresholds.map((t) => t.text),
    expectStatus: p.expect.text,
    startedAt,
    runner: identify(process.pid),
  });
  const onRecord = (r) => {
    fs.appendFileSync(recordsFile, `${JSON.stringify(r)}\n`);
    progress.onRecord(r);
  };
  // --load-nodes: the same generator as tasks on the swarm's nodes, coordinated from here.
  const gen = p.loadNodes
    ? startOnLoadNodes(
        { ...genPlan, mode: p.closed ? 'closed' : 'open' },
        {
          nodes: p.loadNodes,
          env: { ...process.env, ...(runtimeEnv || {}) },
          onRecord,
          log,
          onStarting: progress.starting,
          port: p.ports.coordinator,
        },
      )
    : generator.start(genPlan, { dir: run.dir, onRecord });
  monitoring.watch(() => ({ ...nodesOf(), ...(gen.pid ? { generator: gen.pid } : {}) }));
  if (gen.samples) onLoadNodes(gen.samples);
  // Ctrl-C: the generator stops and reports what it measured; the summary is written by
  // the interrupt's cleanup below.
  const release = own(() => gen.stop());
  let result;
  try {
    result = await gen.done;
  } finally {
    progress.stop();
  }
  release();
  return { genPlan, startedAt, result, gen };
}

// Stage 4b, --warm-cache: every object once through the entry, the CPU caps lifted meanwhile
// (a cache warmed at 1% of a core would take minutes) and put back before the measured run.
async function warmStage(p, runtime, state, target, log) {
  const { objects, path: base } = endpointOf(p.endpoint);
  const caps = runtime?.liftCpuCaps ? runtime.liftCpuCaps(state) : { lifted: [], restore: () => {} };
  const restore = own(() => caps.restore());
  log(
    `warming the caches: ${objects.count} objects through the entry${caps.lifted.length ? ` (CPU caps lifted: ${caps.lifted.join(', ')})` : ''}`,
  );
  try {
    const w = await warmCache({
      target,
      path: base,
      objects,
      onProgress: (n, of) => log(`  warm-up: ${n} of ${of}`),
    });
    log(`warmed: ${w.ok} of ${w.objects} objects in ${w.seconds} s${w.failed ? `, ${w.failed} failed` : ''}`);
    return { ...w, capsLifted: caps.lifted };
  } finally {
    caps.restore();
    restore();
  }
}

// --target at the lab's own local deployment in this state folder (a study's group deploys
// once and loads it level after level): nothing is deployed or stopped here, but its nodes are
// sampled and their groups read as if this run had deployed them, so the node table says
// what the servers used. Anything else behind --target is somebody else's: not looked at.
function watchedDeployment(p) {
  if (!p.target) return null;
  const rt = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host });
  let state;
  try {
    state = rt.readState();
  } catch {
    return null;
  }
  if (!state || state.runtime !== 'local' || !state.url || new URL(state.url).origin !== p.target) return null;
  return rt.isUp() ? { runtime: rt, state } : null;
}

// Stage 6, summary: a pure function of the records and the samples, plus the thresholds.
function summaryStage(p, run, ctx) {
  const { genPlan, records, status, startedAt, deployment, target, samples, workers } = ctx;
  const summary = summarize({
    endpoint: p.endpoint,
    scenario: p.scenario,
    deployment,
    target,
    phases: genPlan.phases,
    status,
    startedAt,
    endedAt: new Date().toISOString(),
    resultsDir: run.dir,
    records,
    generator: { name: p.generator, loop: GENERATORS[p.generator].loop, workers },
    generatorSamples: samples,
    machine: run.machine,
    mergeCache: ctx.mergeCache,
    expect: p.expect,
  });
  if (p.signal) {
    summary.signal = signalSummary(records, genPlan);
    // A participants' run has no arrival rate to miss: what the generator could not hold,
    // the deployment did not take, unless the generator's own CPU ran out (judged above).
    if (!summary.saturation.saturated) {
      const { peak, target } = summary.signal.participants;
      summary.saturation.verdict = `participants: ${peak} of the ${target} asked were connected at the peak; ${closedLoopCpu(summary.phases, summary.generator)}`;
    }
  }
  // A run on the lab's emulated cluster (TCG) says so in every summary and report.
  if (ctx.cluster?.emulated) {
    summary.environment = {
      cluster: ctx.cluster.dir,
      emulated:
        'the deployment ran on emulated VMs (TCG): its timings are several times slower than this machine and comparable only within this cluster',
    };
  }
  // The entry named replicas by address (or, HAProxy, by name): the deployment's names.
  if (summary.answeredBy && ctx.addressNames) {
    const named = {};
    for (const [k, v] of Object.entries(summary.answeredBy)) {
      const name = ctx.addressNames[k] ?? k;
      named[name] = (named[name] || 0) + v;
    }
    summary.answeredBy = named;
  }
  summary.thresholds = evaluate(p.thresholds, summary);
  summary.monitoring = ctx.monitoring;
  const extra = ctx.probe ? ctx.probe.read() : { limits: {} };
  summary.nodes = nodeTable(ctx.nodeSamples || [], extra.limits, extra);
  // Each replica's answers, as the entry named them, in the node table as an edge's are.
  for (const row of summary.nodes.rows) {
    if (row.requests == null && summary.answeredBy?.[row.node] !== undefined)
      row.requests = summary.answeredBy[row.node];
  }
  // Load nodes: a generator row per node, from what each reported.
  for (const n of summary.generator?.nodes || []) {
    summary.nodes.rows.push({
      node: `generator@${n.node}`,
      cpuPctMean: n.cpuPctMean,
      cpuPctMax: n.cpuPctMax,
      memMiBMax: n.rssMiBMax,
      memLimitMiB: null,
      memPctOfLimit: null,
      pidsMax: 1,
      netInBytes: null,
      netOutBytes: null,
      cpuCapPct: null,
      cgroupCpuPct: null,
      oomKills: null,
      requests: null,
      hitRatio: null,
    });
  }
  if (ctx.dashboard) summary.dashboard = ctx.dashboard;
  if (ctx.warmup) summary.warmup = ctx.warmup;
  if (ctx.write !== false) run.writeJson('summary.json', summary);
  return summary;
}

// host:port -> node name, for the nodes of a local deployment that listen on a port.
function addressNames(state) {
  if (!state?.graph) return null;
  const out = {};
  for (const n of state.graph.nodes) if (n.port) out[`${state.host}:${n.port}`] = n.name;
  return out;
}

const readRecords = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

async function scenarioCommand(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };
  // Held connections need open files in every process on their path: raised (or refused)
  // before anything starts.
  if (p.signal) ensureFdsFor(p.participants, log);
  const { endpoint, scenario, deployment, options, ctx, values } = p;
  if (values.print) {
    const script = buildScript({
      endpoint,
      scenario,
      target: p.target || `http://${ctx.host}:${ctx.portBase}`,
      query: p.query,
      request: p.request,
      ...options,
    });
    return { stdout: toYaml(script, [`${endpoint} ${scenario}: generated by the lab from artillery/scenarios.js`]) };
  }
  // One command at a time on this state folder; refused before anything is created: a
  // deployment (or its leftovers) already up here.
  holdDir(ctx.stateDir, '--state-dir');
  // The live page listens before anything starts: its port in use stops the run here.
  const dashboard =
    values.dashboard !== undefined
      ? await startDashboard({ host: ctx.host, port: values.dashboard, title: `${endpoint} ${scenario}` })
      : null;
  let feed = null;
  const liveCache = new Map();
  if (dashboard) {
    own(() => dashboard.close());
    log(`live dashboard: ${dashboard.url}`);
    if (dashboard.exposed) log(dashboard.exposed);
  }
  const runtime = p.target ? null : runtimeFor(p.runtime, { stateDir: ctx.stateDir, host: ctx.host, log });
  if (runtime) runtime.assertNotUp();

  const run = runFolder(p);
  const monitoring = await monitoringStage(p, run, log);
  const { state, target } = await deploymentStage(p, run, runtime, monitoring, log);
  // No balancer: the generator spreads its requests over every replica's address.
  const targets = state && state.urls && state.urls.length > 1 ? state.urls : null;
  // --target at this state folder's own deployment: its nodes are watched, not deployed.
  const watched = runtime ? null : watchedDeployment(p);
  if (watched) log(`${target} is this state folder's ${watched.state.deployment.label}: its nodes are watched`);
  const nodesOf = state ? deploymentNodes(state) : watched ? deploymentNodes(watched.state) : () => ({});
  // Caps, cgroup accounting and edges' caches, over the run's own window (after a warm-up).
  const probe = state ? nodeProbe(runtime, state) : nodeProbe(watched?.runtime, watched?.state);
  let warmup = null;
  // (Load nodes report their own CPU: the busiest node's, second by second.)
  let loadNodeSamples = null;
  const samples = () =>
    loadNodeSamples
      ? loadNodeSamples()
      : monitoring.samples.filter((s) => s.nodes.generator).map((s) => ({ at: s.at, ...s.nodes.generator }));
  const summaryOf = (status, genPlan, startedAt, workers, write = true) =>
    summaryStage(p, run, {
      write,
      mergeCache: write ? null : liveCache,
      dashboard: feed ? feed.stats() : null,
      warmup,
      genPlan,
      records: readRecords(run.file('records.jsonl')),
      status,
      startedAt,
      deployment: state ? deployment : null,
      target,
      samples: samples(),
      workers,
      monitoring: monitoring.sources,
      nodeSamples: monitoring.samples,
      probe,
      addressNames: addressNames(state ?? watched?.state),
      // (A --target on the lab's emulated cluster is said to be one too.)
      cluster:
        state?.cluster ??
        (process.env.LAB_EMULATED && p.target && new URL(p.target).hostname === process.env.LAB_HOST
          ? { dir: process.env.LAB_CLUSTER_DIR, emulated: true }
          : null),
    });

  // An interrupt keeps what was gathered: a partial summary and its report.
  let partial = null;
  const releasePartial = own(() => {
    if (!interrupted() || !partial) return;
    const s = summaryOf('interrupted', partial.genPlan, partial.startedAt, partial.workers);
    try {
      require('./report').writeReport(run.dir);
    } catch (err) {
      log(`no report for the partial run: ${err.message}`);
    }
    log(`interrupted: partial results in ${s.resultsDir}`);
  });
  const genPlan = { ...generatorPlan(p, target, run, monitoring), targets };
  partial = { genPlan, startedAt: new Date().toISOString(), workers: null };

  if (values['warm-cache']) warmup = await warmStage(p, runtime, state, target, log);
  probe.start();
  if (dashboard) {
    const totalS = genPlan.phases.reduce((a, ph) => a + ph.duration, 0);
    const began = Date.now();
    feed = liveFeed(dashboard, {
      render: ({ intervalMs }) => {
        const summary = summaryOf('running', genPlan, partial.startedAt, null, false);
        // Since the first phase began (the generator's own start), as the report's axis.
        const firstPhase = Date.parse(summary.phases[0]?.startedAt);
        const elapsedS = Math.max(0, (Date.now() - (Number.isFinite(firstPhase) ? firstPhase : began)) / 1000);
        return {
          html: String(
            liveBody(loadRun.runWith(run.dir, summary), {
              elapsedS,
              totalS,
              phases: genPlan.phases,
              closed: p.closed || p.signal,
              intervalMs,
              dashboardCpu: feed.stats().cpuPctOfCore ?? 0,
            }),
          ),
          status: `running: ${Math.floor(elapsedS)} s of ${totalS} s`,
        };
      },
    });
    feed.start();
    own(() => feed.stop({ html: '', status: 'the run was interrupted; its partial report is in the results folder' }));
  }
  let generation;
  try {
    generation = await generationStage(p, run, genPlan, target, monitoring, nodesOf, log, {
      runtimeEnv: runtime?.env,
      onLoadNodes: (f) => (loadNodeSamples = f),
      dashboardUrl: dashboard?.url,
      deployment: state ? deployment : null,
    });
  } catch (err) {
    if (!interrupted()) summaryOf('failed', genPlan, partial.startedAt, null);
    throw err;
  }
  // The nodes' window ends with the load.
  probe.stop();
  // Interrupted: the cleanup above writes the partial summary once the generator stopped.
  if (interrupted()) return {};
  releasePartial();
  // One more StatsD flush, so the service's last second is in the series; then stop the
  // sampling before the deployment goes down (its exit is not part of the run).
  await sleep(1200);
  await monitoring.stop();
  const status = generation.result.status === 'completed' ? 'completed' : generation.result.status;
  const summary = summaryOf(status, generation.genPlan, generation.startedAt, generation.gen.workers);
  const reportFile = require('./report').writeReport(run.dir);
  log(`report: ${reportFile}`);
  if (feed) {
    feed.stop({
      html: String(require('../report/run-report').runBody(loadRun(run.dir))),
      status: `the run has ended (${status}); its report: ${reportFile}`,
    });
    // A moment for the last event to reach the open tabs.
    await sleep(300);
    await dashboard.close();
  }
  const failed = summary.thresholds.filter((t) => !t.ok);
  const exitCode = failed.length || status !== 'completed' ? 1 : 0;
  if (values.json) return { stdout: JSON.stringify(summary, null, 2), exitCode };
  return { stdout: renderSummary(summary), exitCode };
}

scenarioCommand.usage = USAGE;
scenarioCommand.plan = plan;
module.exports = scenarioCommand;
