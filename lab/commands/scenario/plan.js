'use strict';

// `npm run scenario`: its words and flags, the whole command line checked once before anything
// is created, started or deleted, and turned into the plan the run's stages read (./index.js
// runs it; --plan and --print say it).

const path = require('node:path');
const {
  ENDPOINTS,
  SCENARIOS,
  SIGNAL,
  REQUEST_TIMEOUT_S,
  endpointOf,
  isPath,
  pathOf,
} = require('../../../artillery/scenarios');
const { signalStages } = require('../../../artillery/stages');
const { allNames, METHOD_NAMES } = require('../../topology/deployments');
const { pick } = require('../../names');
const { DEPLOY_FLAGS, KIND_HELP, planDeploy } = require('../../runtime/deploy-plan');
const { GENERATORS, GENERATOR_FLAGS, assertRuns, generatorHelp } = require('../../generators');
const { parseThreshold } = require('../../results/thresholds');
const { defineCommand, flag } = require('../../terminal/flags');
const { CONTEXT } = require('../../topology/context');
const { DASHBOARD_FLAGS } = require('../../dashboard/flag');
const { assertClaimable } = require('../../ownership/dirs');
const { labError } = require('../../../common/errors');
const { requestOf, parseMethod, parseHeader, METHODS } = require('../../scenario/request');
const { RATE } = require('../../scenario/limits');
const { NODE_FLAG, nodesOf } = require('../../runtime/node-flag');
const { catalogueModel } = require('../../scenario/catalogue');
const { readScript } = require('../../scenario/from-artillery');
const { SCRIPT_FLAGS, SCRIPT_HELP, INSECURE_FLAG, scriptOptionsOf } = require('../../scenario/script-flags');
const { requestNames, checkModel } = require('../../scenario/model');
const { scalePhase } = require('../../../artillery/phases');
const { parseExpect } = require('../../results/expect-status');
const { OUT_FLAGS, OUT_HELP } = require('../../outputs/flags');
const { PROFILE_FLAGS, PROFILE_HELP, profileOf } = require('../../profile/flags');
const { ELASTIC_FLAGS, ELASTIC_HELP, elasticOf, assertElastic } = require('../../elastic/flags');
const { appOf } = require('../../app/flags');
const { profileWindow } = require('../../profile/window');
const { rolloutBounds } = require('../../elastic/replicas');
const { assertChromiumForPlaywright } = require('../../chromium');

const USAGE = `usage: npm run scenario -- <endpoint> <scenario> <deployment> [options]
       npm run scenario -- --script FILE <deployment> [options]    (your Artillery script)
       npm run scenario -- <endpoint> <scenario> --target URL      (a system already up)
  endpoints:   ${Object.keys(ENDPOINTS).join(', ')}, or a path of your service (/api/items)
  scenarios:   ${Object.keys(SCENARIOS).join(', ')}
  deployments: ${allNames().join(', ')}
options:
  --script FILE    an Artillery test script (YAML or JSON, as \`artillery run\` takes): its
                   phases (--scale, --rate-scale apply), flows and the rest of Artillery's HTTP
                   features; its target is the deployment's (docs/generators-and-scenarios.md)
  --insecure, -k   an https:// target's certificate is not checked (Artillery's -k); a --tls
                   deployment's own is always trusted through its CA
${SCRIPT_HELP}
  --app DIR        your own Node service in place of the lab's (see npm run deploy -- --help)
  --method M, --body TEXT|@FILE, --header 'Name: value' (repeatable)
                   the request each arrival sends (default GET; a body makes it POST, JSON
                   bodies go as application/json)
  --expect-status S  which statuses succeed (default: below 400), e.g. 200,404 or 2xx,404;
                   every other answer counts as failed, in errors and thresholds
${generatorHelp()}
  --warm-cache     asset: ask every object once through the entry before measuring (CPU caps
                   lifted meanwhile, memory limits kept), so a short run is not a cold-cache run
  --dashboard [PORT]  a live page of the run on 127.0.0.1:PORT (default 5665; --host to change
                   the address; LAB_DASHBOARD=1 too), its URL printed at the start
  --load-nodes N   fast/closed: run the generator as N tasks of the swarm (one per node while
                   it has that many), its schedule shared as between threads, results merged
                   exactly; needs --engine swarm (or --target with DOCKER_HOST on a swarm)
  --ensure EXPR    fail the run (exit 99) unless EXPR holds; repeatable: p99<500, errors<1%,
                   rate>=0.99, rps>=100 (metrics p50 p75 p90 p95 p99 max mean errors rate rps),
                   or one request's: p99{POST /api/cart}<300, errors{GET /api/items}<1%
  --scale F        multiply every duration (e.g. 0.1 for a smoke run)
  --rate-scale F   multiply every arrival rate
  --rate N         instead of the scenario's phases, one constant phase of N arrivals a second
                   for --duration (default 60 s): a level held (npm run capacity holds them so)
  --duration D     endurance length (seconds, or 90s, 10m, 1h); with closed, any scenario's
  --target URL     run against a system that is already up (no deploy); its path, if it has
                   one, is the endpoint
  --engine E       where the deployment runs: local (default: processes + nginx), compose (containers)
                   or swarm (a stack on the swarm DOCKER_HOST names)
  --keep           leave the deployment up afterwards
  --print          print the Artillery script and exit
  --plan           check everything, print what the run would do and how long, and exit
  --json           print summary.json to stdout
  --heavy-ms MS    how long /heavy burns the CPU (default 5000, as in the course)
  --shutdown drain|abrupt  what the lab's service does on SIGTERM: drain (the default: answer
                   what is in flight, then exit) or exit at once, as a service with no handler
                   (local engine; see --rollout-at)
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
  --results-dir DIR, --run-dir DIR (a new or empty folder, or one the lab made)
${PROFILE_HELP}
${ELASTIC_HELP}
  --slo-p99 MS     a spike (a phase at twice the rate before it) is absorbed once p99 stays under
                   this with no failure for 5 s (default 500 ms): summary.spikes
${OUT_HELP}`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 3, name: 'word' },
  flags: {
    ...CONTEXT,
    ...DEPLOY_FLAGS,
    ...DASHBOARD_FLAGS,
    ...GENERATOR_FLAGS,
    ...OUT_FLAGS,
    ...PROFILE_FLAGS,
    ...ELASTIC_FLAGS,
    'slo-p99': flag.int(1, 600000),
    generator: flag.enum(Object.keys(GENERATORS), 'generator'),
    script: flag.path(),
    ...SCRIPT_FLAGS,
    'warm-cache': flag.bool(),
    ...INSECURE_FLAG,
    'load-nodes': flag.int(1, 64),
    ensure: flag.list(parseThreshold),
    scale: flag.factor(),
    'rate-scale': flag.factor(),
    rate: RATE,
    duration: flag.duration(),
    target: flag.url(),
    node: NODE_FLAG,
    keep: flag.bool(),
    'run-name': flag.pattern(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, - or _'),
    print: flag.bool(),
    plan: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    'heavy-ms': flag.int(1, 60000),
    shutdown: flag.enum(['drain', 'abrupt'], 'shutdown'),
    'work-n': flag.int(1, 100000),
    'no-statsd': flag.bool(),
    'no-graphite': flag.bool(),
    graphite: flag.pattern(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'HOST or HOST:PORT'),
    // Two things share the word: the request's HTTP method and the balancer's (their names
    // differ), each at most once: --method POST --method hash.
    method: flag.list(parseEitherMethod),
    body: flag.string(),
    header: flag.list(parseHeader),
    'expect-status': { type: 'custom', parse: parseExpect, expected: 'statuses or ranges, like 200,404 or 2xx' },
  },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const HELP = [USAGE, COMMAND.needsHelp()].filter(Boolean).join('\n');

// --method: an HTTP method (GET, POST, ...) for the request, or the balancer's (round-robin,
// least_conn, hash). -> { http } or { balancer }.
function parseEitherMethod(raw) {
  if (METHOD_NAMES.includes(raw)) return { balancer: raw };
  try {
    return { http: parseMethod(raw) };
  } catch {
    throw labError(
      'LAB_ERR_USAGE',
      `--method ${raw}: the request's (${METHODS.join(', ')}) or the balancer's (${METHOD_NAMES.join(', ')})`,
    );
  }
}
function methodsOf(values) {
  const list = values.method || [];
  const http = list.filter((m) => m.http).map((m) => m.http);
  const balancer = list.filter((m) => m.balancer).map((m) => m.balancer);
  if (http.length > 1 || balancer.length > 1)
    throw labError('LAB_ERR_USAGE', '--method: one for the request and one for the balancer at most');
  return { http: http[0], balancer: balancer[0] };
}

// A refusal of the command line, with the code of its situation (common/errors.js).
const refuse = (code, ...details) => {
  throw labError(code, ...details);
};

// The words of the command line: <endpoint> <scenario> <deployment>, or with --script the
// deployment alone; with --target the deployment is not needed, and a --target with a path
// stands for the endpoint (the path is kept, never dropped: a run once measured /ping when
// told /api/items).
function wordsOf(positionals, values) {
  const usage = (text) => labError('LAB_ERR_MISSING_ARG', text, USAGE);
  const target = values.target ? new URL(values.target) : null;
  const targetPath = target && (target.pathname !== '/' || target.search) ? `${target.pathname}${target.search}` : null;
  if (values.script) {
    if (positionals.length > (target ? 0 : 1) || (!target && positionals.length !== 1)) {
      throw usage(
        `${target ? 'no other word' : 'the deployment alone'} with --script: npm run scenario -- --script FILE ${target ? '--target URL' : '<deployment>'}`,
      );
    }
    if (targetPath)
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'target',
        values.target,
        "the script's requests name their own paths; give the target's origin",
      );
    return { endpoint: path.basename(values.script), scenario: 'script', deploymentName: positionals[0] ?? null };
  }
  if (!target) {
    if (positionals.length !== 3) throw usage('<endpoint> <scenario> <deployment>');
    const [endpoint, scenario, deploymentName] = positionals;
    return { endpoint, scenario, deploymentName };
  }
  let [endpoint, scenario, deploymentName = null] = positionals;
  if (positionals.length <= 1) {
    if (!targetPath || !positionals.length)
      throw usage('<endpoint> <scenario> (or a --target URL whose path is the endpoint)');
    [scenario, endpoint] = [positionals[0], targetPath];
  }
  const asked = targetPath && endpointOf(endpoint)?.path;
  if (targetPath && asked !== undefined && asked !== targetPath) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'target',
      values.target,
      `it names the path ${targetPath}, and the endpoint ${endpoint} asks ${asked}: give the path once (npm run scenario -- ${scenario} --target ${values.target})`,
    );
  }
  return { endpoint, scenario, deploymentName };
}

// --rate N: the model with one constant phase of N arrivals a second instead of its own.
function atRate(model, values) {
  if (values.rate === undefined) return model;
  if (values['rate-scale'] !== undefined)
    refuse('LAB_ERR_FLAGS_EXCLUDE', 'rate', 'rate-scale', '--rate sets the arrival rate itself: drop --rate-scale');
  const durationS = (values.duration ?? 60) * (values.scale ?? 1);
  const phase = scalePhase({ name: `constant ${values.rate}/s`, duration: durationS, arrivalRate: values.rate });
  return checkModel({ ...model, phases: [phase] });
}

// What the run sends: the scenario model (lab/scenario/model.js) of an Artillery script or of
// the lab's catalogue, or, for the signal endpoint, its stages of participants.
function scenarioOf(words, values, given) {
  const what = scenarioOfWords(words, values, given);
  if (values.rate !== undefined && what.signal)
    refuse('LAB_ERR_FLAG_VALUE', 'rate', values.rate, 'it is arrivals a second; the signal endpoint has participants');
  return { ...what, model: what.model && atRate(what.model, values) };
}

function scenarioOfWords(words, values, given) {
  const options = { scale: values.scale ?? 1, rateScale: values['rate-scale'] ?? 1, durationS: values.duration };
  if (values.script) {
    for (const f of ['method', 'body', 'header', 'work-n', 'warm-cache']) {
      if (f === 'method' ? methodsOf(values).http : given.has(f))
        refuse(
          'LAB_ERR_FLAGS_EXCLUDE',
          f,
          'script',
          `--${f} shapes the lab's own request; your script (--script) says its own`,
        );
    }
    return {
      model: readScript(values.script, { ...options, ...scriptOptionsOf(values, given) }),
      options,
      signal: false,
    };
  }
  scriptOptionsOf(values, given);
  const { endpoint, scenario } = words;
  if (!isPath(endpoint)) pick('endpoint', endpoint, ENDPOINTS);
  pick('scenario', scenario, SCENARIOS);
  const signal = Boolean(endpointOf(endpoint).participants);
  if (signal) {
    if (values.app || methodsOf(values).http || ['body', 'header'].some((f) => given.has(f))) {
      refuse(
        'LAB_ERR_FLAG_VALUE',
        ['app', 'method', 'body', 'header'].find((f) => given.has(f)),
        null,
        "it is for HTTP, and the signal endpoint is the lab's own WebSocket signaling (--app, --method, --body and --header)",
      );
    }
    const stages = signalStages(scenario, options);
    const signalPlan = {
      name: endpoint,
      stages,
      ...SIGNAL.participant,
      timeoutMs: REQUEST_TIMEOUT_S * 1000,
      // The progress line and the summary read phases: one per stage.
      phases: stages.map((st) => ({ name: st.name, duration: st.duration })),
    };
    return { model: null, options, signal: true, signalPlan, participants: Math.max(...stages.map((st) => st.target)) };
  }
  if (values['warm-cache'] && !endpointOf(endpoint)?.objects) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'warm-cache',
      null,
      `it is for endpoints of many cacheable objects (asset), not ${endpoint}`,
    );
  }
  if (values['work-n'] !== undefined && endpoint !== 'work')
    refuse('LAB_ERR_FLAG_VALUE', 'work-n', values['work-n'], `it is for the work endpoint, not ${endpoint}`);
  // The request every arrival sends (lab/scenario/request.js); the lab's own endpoints keep
  // their path (and query) and may change the method, headers or body too.
  const request = requestOf({
    path: pathOf(endpoint, values['work-n'] !== undefined ? { n: values['work-n'] } : null),
    method: methodsOf(values).http,
    body: values.body,
    headers: values.header,
  });
  return { model: catalogueModel({ endpoint, scenario, request, options }), options, signal: false };
}

// The generator (lab/generators/): the one asked, which must run what the run asks of it,
// by its own declarations.
function generatorOf(values, given, what, { runtime }) {
  const name = values.generator ?? (what.signal ? 'signal' : 'artillery');
  const g = GENERATORS[name];
  if (what.signal !== (g.drives === 'participants')) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'generator',
      name,
      what.signal
        ? 'the signal endpoint runs with --generator signal (the default for it)'
        : 'it is for the signal endpoint',
    );
  }
  const asks = [];
  if (values.balancer === 'none')
    asks.push({ needs: 'targets', text: '--balancer none (the generator spreads over the replicas itself)' });
  if (values['load-nodes'] !== undefined)
    asks.push({ needs: 'load-nodes', text: "--load-nodes (the lab's own generator on several nodes)" });
  for (const f of ['rate-scale', 'rate']) {
    if (given.has(f) && !what.signal)
      asks.push({ needs: 'rates', text: `--${f} (arrival rates; a closed loop has none: --connections)` });
  }
  assertRuns(g, { given, model: what.model, asks });
  // A flag the run would ignore is a mistake worth saying, not a silent no-op.
  const usesDuration = values.rate !== undefined || (!values.script && SCENARIOS[what.words.scenario]?.usesDuration);
  if (given.has('duration') && g.loop === 'open' && !usesDuration && !what.signal) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'duration',
      null,
      `it sets the length of the endurance scenario (or of a closed loop); ${values.script ? "the script's phases set its length" : `${what.words.scenario} has fixed phases`} (use --scale to stretch or shrink them)`,
    );
  }
  if (values['load-nodes'] !== undefined) {
    // (LAB_LOAD_NODES=local: the nodes are processes of this machine, to try the coordination.)
    if (!values.target && runtime !== 'swarm' && process.env.LAB_LOAD_NODES !== 'local') {
      refuse(
        'LAB_ERR_NOT_ON_ENGINE',
        `--load-nodes with --engine ${runtime}`,
        `it runs the generator as tasks of a swarm, and --engine ${runtime} has none: deploy with --engine swarm (the lab's VM cluster: npm run cluster -- up, then eval "$(npm run -s cluster -- env)"), or give --target with DOCKER_HOST naming a swarm manager`,
      );
    }
    if (values.balancer === 'none')
      refuse(
        'LAB_ERR_FLAGS_EXCLUDE',
        'load-nodes',
        'balancer none',
        'the nodes reach the deployment through its entry, and --balancer none has none',
      );
    if (what.model?.features.includes('hooks'))
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'load-nodes',
        values['load-nodes'],
        "the script's before and after sections run once, on one machine: run it without --load-nodes",
      );
  }
  return name;
}

// The thresholds: the scenario's own (a catalogue row's, a script's config.ensure) and
// --ensure's; one on a request of no such name is refused, naming the ones there are.
// (A user's script run by Artillery: Artillery judges its checks itself, and the run
// follows its verdict; the lab judges --ensure on top.)
function thresholdsOf(model, values, generator) {
  const own = generator === 'artillery' && model?.source.kind === 'artillery' ? [] : model?.ensure || [];
  const thresholds = [...own.map(parseThreshold), ...values.ensure];
  const names = model ? requestNames(model) : [];
  for (const t of thresholds) {
    if (t.name !== undefined && !names.includes(t.name)) {
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'ensure',
        `"${t.text}"`,
        `the scenario has no request named "${t.name}"; its requests: ${names.join(', ')}`,
      );
    }
  }
  return thresholds;
}

// The whole command line checked before anything is created, started or deleted, and turned
// into what the run's stages need (lab/run/).
// --node V: the service on that Node (lab/runtime/node-versions.js), on the local engine, for a
// run that deploys it. One version: capacity --node compares several.
function nodeOf(values, target) {
  if (!values.node) return null;
  if (values.node.length > 1)
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'node',
      values.node.join(','),
      'one version for a scenario; capacity --node 22,24 compares versions side by side',
    );
  if (target)
    refuse('LAB_ERR_FLAGS_EXCLUDE', 'node', 'target', '--node deploys the service on it; --target is up already');
  if ((values.engine ?? 'local') !== 'local')
    refuse(
      'LAB_ERR_NOT_ON_ENGINE',
      '--node',
      "the local engine's processes run on it (the images bring their own Node)",
    );
  return nodesOf(values)[0];
}

function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  if (help) return { help: true };
  const words = wordsOf(positionals, values);
  const what = { ...scenarioOf(words, values, given), words };
  if (values.app) {
    for (const f of ['heavy-ms', 'work-n', 'key', 'shutdown'])
      if (given.has(f)) refuse('LAB_ERR_FLAGS_EXCLUDE', f, 'app', `--${f} is for the lab's own service, not --app`);
  }
  if (values.balancer === 'none' && values.target)
    refuse(
      'LAB_ERR_FLAGS_EXCLUDE',
      'balancer none',
      'target',
      '--balancer none deploys; --target is for a system already up',
    );
  if (values.target && values.app)
    refuse(
      'LAB_ERR_FLAGS_EXCLUDE',
      'app',
      'target',
      '--app deploys your service; --target is for a system already up: give one',
    );
  if (values.shutdown !== undefined && (values.engine ?? 'local') !== 'local')
    refuse(
      'LAB_ERR_NOT_ON_ENGINE',
      '--shutdown',
      "it sets the lab's service on the local engine (its containers drain)",
    );
  const target = values.target ? new URL(values.target).origin : null;
  // (A target already up speaks what it speaks: TLS's flags for an https:// one only.)
  if (target && !target.startsWith('https:'))
    for (const f of ['tls-resume', 'streams'])
      if (given.has(f))
        refuse(
          'LAB_ERR_FLAG_VALUE',
          'target',
          target,
          `plain HTTP, and --${f} is for an https:// target (TLS${f === 'streams' ? ' with HTTP/2' : ''})`,
        );
  const node = nodeOf(values, target);
  const elastic = elasticPlan(values, what);
  // (--autoscale starts at MIN replicas unless --replicas says otherwise.)
  const deployValues = {
    ...values,
    method: methodsOf(values).balancer,
    ...(elastic?.autoscale && values.replicas === undefined ? { replicas: elastic.autoscale.min } : {}),
  };
  const { deployment, ctx, ports, graph, caps, runtime, placement } = planDeploy(
    deployValues,
    words.deploymentName ?? 'single',
  );
  if (elastic) assertElastic(deployment, runtime);
  // (The rollout's room, against the replicas the run starts with.)
  if (elastic?.rollout)
    rolloutBounds(deployment.replicas, {
      maxSurge: elastic.rollout.maxSurge,
      maxUnavailable: elastic.rollout.maxUnavailable,
    });
  const generator = generatorOf(values, given, what, { runtime });
  // (Artillery's HTTP engine has no HTTP/2 client: the entry would answer it in HTTP/1.1 and the
  // run would be labelled http2. Refused, naming both.)
  if (values.http2 && generator === 'artillery')
    refuse(
      'LAB_ERR_FLAGS_EXCLUDE',
      'http2',
      'generator artillery',
      "Artillery's HTTP engine speaks HTTP/1.1 only, so the entry would answer it in HTTP/1.1; use --generator fast or closed for HTTP/2, or --tls for HTTPS with Artillery",
    );
  const profile = profilePlan(values, what, generator);
  // A browser's scenario (Artillery's Playwright engine) needs Debian's Chromium: refused now,
  // with the command that installs it (a run once deployed, then said so).
  if (what.model?.foreign?.some((f) => f.feature === 'the playwright engine')) assertChromiumForPlaywright();
  if (values.print && what.signal)
    refuse('LAB_ERR_FLAG_VALUE', 'print', null, 'the signal endpoint has no Artillery script to print');
  if (what.signal && values.balancer === 'none') {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'balancer',
      'none',
      'the signal generator reaches one address; choose a balancer, or the single deployment',
    );
  }
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  const participants = what.participants ?? 0;
  // Proxies are given room for the held connections (nginx: either worker may accept them all).
  const connections = participants * 2 + 1024 > 8192 ? participants * 2 + 1024 : undefined;
  return {
    endpoint: words.endpoint,
    scenario: words.scenario,
    model: what.model,
    signalPlan: what.signalPlan ?? null,
    options: what.options,
    expect: values['expect-status'] ?? parseExpect(),
    deployment,
    runtime,
    placement,
    target,
    ctx,
    ports,
    graph,
    caps,
    values,
    serviceEnv: {
      ...(values['heavy-ms'] !== undefined ? { HEAVY_MS: String(values['heavy-ms']) } : {}),
      ...(values.shutdown !== undefined ? { SHUTDOWN: values.shutdown } : {}),
    },
    generator,
    loadNodes: values['load-nodes'] ?? null,
    closed: GENERATORS[generator].loop === 'closed' && !what.signal,
    signal: what.signal,
    connections,
    participants,
    thresholds: thresholdsOf(what.model, values, generator),
    profile,
    elastic,
    appNext: elastic?.rollout?.appNext
      ? appOf({ ...values, app: elastic.rollout.appNext }, { flag: 'app-next' })
      : null,
    sloMs: values['slo-p99'] ?? 500,
    node,
  };
}

// How long the load lasts, in seconds, as the generator will run it (null: until its requests
// are answered): the closed loop's --duration, else the phases'. (A rollout after the end of
// a closed loop's --duration was once taken, then failed with "the rollout did not finish".)
function loadSeconds(values, what) {
  if (what.signal) return what.signalPlan.phases.reduce((a, ph) => a + ph.duration, 0);
  const scripted = what.model.phases.reduce((a, ph) => a + ph.duration, 0);
  if (values.generator === 'closed') return values.duration ?? (values.requests ? null : scripted);
  return scripted;
}

// The phases the profile's window is found in: those the generator runs (lab/generators/
// plugins: the closed loop's one phase of its length).
function loadPhases(values, what, generator) {
  if (what.signal) return what.signalPlan.phases;
  if (GENERATORS[generator].loop === 'closed') {
    const s = loadSeconds({ ...values, generator: 'closed' }, what);
    return [{ name: 'closed loop', duration: s ?? what.model.phases.reduce((a, ph) => a + ph.duration, 0) }];
  }
  return what.model.phases;
}

// --profile, with its window found now, in the load as planned: a window past the load's end
// is refused here, with the load's length (it once ran, "completed", with no profile and one
// line on stderr).
function profilePlan(values, what, generator) {
  const profile = profileOf(values);
  if (!profile) return null;
  try {
    return {
      ...profile,
      at: profileWindow(loadPhases(values, what, generator), { given: profile.window, seconds: profile.seconds }),
    };
  } catch (err) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'profile-window',
      `${values['profile-window'].fromS}-${values['profile-window'].toS}`,
      err.message,
    );
  }
}

// --autoscale, --rollout-at (lab/elastic/flags.js), with what only the scenario knows: the
// load's length and the --scale of its times.
function elasticPlan(values, what) {
  const e = elasticOf(values, {
    runtime: values.engine ?? 'local',
    probe: !values['no-probe'],
    scale: values.scale ?? 1,
    durationS: what.model ? loadSeconds(values, what) : null,
    hasApp: Boolean(values.app),
  });
  if (!e) return null;
  if (values.target)
    refuse(
      'LAB_ERR_FLAGS_EXCLUDE',
      values.autoscale !== undefined ? 'autoscale' : 'rollout-at',
      'target',
      '--autoscale and --rollout-at change the deployment the lab deploys',
    );
  if (what.signal)
    refuse(
      'LAB_ERR_FLAG_VALUE',
      values.autoscale !== undefined ? 'autoscale' : 'rollout-at',
      null,
      "it is for HTTP loads, not the signal endpoint's participants",
    );
  return e;
}

module.exports = { USAGE, HELP, COMMAND, plan };
