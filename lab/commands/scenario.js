'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ENDPOINTS, SCENARIOS } = require('../../artillery/scenarios');
const { buildScript, toYaml } = require('../../artillery/script');
const { allNames } = require('../deployments');
const { pick } = require('../names');
const { runtimeFor } = require('../runtime');
const { DEPLOY_FLAGS, planDeploy } = require('./deploy');
const runArtillery = require('../artillery-run');
const startMonitoring = require('../monitoring');
const deploymentNodes = require('../monitoring/nodes');
const { sleep } = require('../procs');
const { summarize } = require('../summary');
const renderSummary = require('../render-summary');
const { progressLine, totalsFrom } = require('../progress');
const describeMachine = require('../../common/machine');
const { defineCommand, flag, CONTEXT, ROOT } = require('../cli/flags');
const { assertClaimable, claimDir, resetDir } = require('../ownership/dirs');
const { adoptStateDir } = require('../ownership/adopt');
const { own, interrupted } = require('../ownership/cleanups');
const { labError } = require('../../common/errors');

const USAGE = `usage: npm run scenario -- <endpoint> <scenario> <deployment> [options]
  endpoints:   ${Object.keys(ENDPOINTS).join(', ')}
  scenarios:   ${Object.keys(SCENARIOS).join(', ')}
  deployments: ${allNames().join(', ')}
options:
  --scale F        multiply every duration (e.g. 0.1 for a smoke run)
  --rate-scale F   multiply every arrival rate
  --duration D     endurance length (seconds, or 90s, 10m, 1h)
  --target URL     run against a system that is already up (no deploy)
  --engine E       where the deployment runs: local (default: processes + nginx) or compose (containers)
  --keep           leave the deployment up afterwards
  --print          print the Artillery script and exit
  --json           print summary.json to stdout
  --heavy-ms MS    how long /heavy burns the CPU (default 5000, as in the course)
  --no-statsd      run without StatsD (and so without Graphite)
  --no-graphite    do not start or feed a Graphite
  --graphite H:P   feed the carbon at H:P instead of starting one
  --run-name NAME  the run's name under lab. in StatsD/Graphite (default: the results folder's);
                   with the compose stack's Grafana, use its LAB_RUN (default compose-<deployment>)
  --force          allow more than 8 service processes per core
  --replicas N, --workers N, --key KEY, --port-base P, --host H, --state-dir DIR,
  --results-dir DIR, --run-dir DIR (a new or empty folder, or one the lab made)`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: ['endpoint', 'scenario', 'deployment'] },
  flags: {
    ...CONTEXT,
    ...DEPLOY_FLAGS,
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
    'no-statsd': flag.bool(),
    'no-graphite': flag.bool(),
    graphite: flag.pattern(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'HOST or HOST:PORT'),
  },
});

// Validates the command line completely before anything is created, started or deleted.
function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  if (help) return { help: true };
  const [endpoint, scenario, deploymentName] = positionals;
  pick('endpoint', endpoint, ENDPOINTS);
  pick('scenario', scenario, SCENARIOS);
  // A flag the chosen scenario would ignore is a mistake worth saying, not a silent no-op.
  if (given.has('duration') && !SCENARIOS[scenario].usesDuration) {
    throw labError(
      'LAB_ERR_USAGE',
      `--duration sets the length of the endurance scenario; ${scenario} has fixed phases (use --scale to stretch or shrink them)`,
    );
  }
  const target = values.target ? new URL(values.target).origin : null;
  const { deployment, ctx, ports, engine } = planDeploy(values, deploymentName);
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  const options = { scale: values.scale ?? 1, rateScale: values['rate-scale'] ?? 1, durationS: values.duration };
  const serviceEnv = values['heavy-ms'] !== undefined ? { HEAVY_MS: String(values['heavy-ms']) } : {};
  return { endpoint, scenario, deployment, engine, options, target, ctx, ports, values, serviceEnv };
}

function stamp(d = new Date()) {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/:/g, '-');
}

async function scenarioCommand(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };
  const { endpoint, scenario, deployment, options, ctx, values } = p;

  if (values.print) {
    const script = buildScript({
      endpoint,
      scenario,
      target: p.target || `http://${ctx.host}:${ctx.portBase}`,
      ...options,
    });
    return { stdout: toYaml(script, [`${endpoint} ${scenario}: generated by the lab from artillery/scenarios.js`]) };
  }

  // Refused before anything is created: a deployment (or its leftovers) already up here.
  const runtime = p.target ? null : runtimeFor(p.engine, { stateDir: ctx.stateDir, host: ctx.host, log });
  if (runtime) runtime.assertNotUp();

  const resultsRoot = values['results-dir'] ?? path.join(ROOT, 'results');
  // --run-dir: exactly this folder (the study uses stable names so it can resume), emptied
  // only when the lab made it; otherwise a new folder under the results root.
  const resultsDir =
    values['run-dir'] ??
    path.join(resultsRoot, `${stamp()}-${endpoint}-${scenario}-${p.target ? 'external' : deployment.name}`);
  // From here on every process started carries the state folder's token (lab/ownership).
  adoptStateDir(ctx.stateDir);
  if (values['run-dir']) resetDir(resultsDir, '--run-dir');
  else claimDir(resultsDir, 'the run folder');
  const file = (name) => path.join(resultsDir, name);
  const writeJson = (name, data) => fs.writeFileSync(file(name), `${JSON.stringify(data, null, 2)}\n`);
  const machine = describeMachine({ artillery: require('artillery/package.json').version });
  writeJson('machine.json', machine);

  // Monitoring first, so the replicas start with StatsD's address; stopped last.
  const runId = values['run-name'] ?? path.basename(resultsDir).replace(/[^A-Za-z0-9_-]/g, '_');
  const prefix = `lab.${runId}`;
  const { ports } = p;
  const monitoring = await startMonitoring({
    resultsDir,
    graphiteDir: path.join(ctx.stateDir, 'graphite'),
    host: ctx.host,
    ports,
    prefix,
    statsd: !values['no-statsd'] && process.env.LAB_STATSD !== 'off',
    graphite: values['no-graphite'] ? 'off' : (values.graphite ?? process.env.LAB_GRAPHITE ?? 'auto'),
  });
  own(() => monitoring.stop());
  for (const [name, src] of Object.entries(monitoring.sources)) {
    if (!src.ok) log(`monitoring: no ${name}: ${src.reason}`);
  }

  // Deploy, unless a target is given.
  let target = p.target;
  let state = null;
  if (runtime) {
    // Owned until it is up even with --keep: an interrupted or failed start leaves nothing.
    const releaseDeployment = own(() => runtime.down().then(() => log('deployment stopped')));
    log(`deploying ${deployment.label}${p.engine === 'local' ? '' : ` on ${p.engine}`}`);
    state = await runtime.up(deployment, ports, {
      bbox: { key: values.key ?? '' },
      statsd: monitoring.statsd,
      serviceEnv: { ...p.serviceEnv, STATSD_PREFIX: `${prefix}.service` },
    });
    target = state.url;
    fs.copyFileSync(state.nginxConf, file('nginx.conf'));
    if (values.keep) {
      releaseDeployment();
      log(`the deployment stays up at ${target} (npm run down to stop it)`);
    }
  }
  writeJson(
    'deployment.json',
    state
      ? { ...deployment, engine: p.engine, url: state.url, ports: state.ports, processes: state.processes }
      : { target },
  );

  const script = buildScript({ endpoint, scenario, target, ...options });
  const phases = script.config.phases;
  const totalS = phases.reduce((a, ph) => a + ph.duration, 0);
  fs.writeFileSync(file('script.yml'), toYaml(script, [`${endpoint} ${scenario} against ${target}`]));
  // What the lab runs adds its plugin (live events) and processor (per-second series) to
  // the plain script; script.yml above is what a user can run by hand.
  const runScript = {
    config: {
      ...script.config,
      processor: path.join(ROOT, 'artillery', 'plugins', 'lab-processor.js'),
      plugins: {
        lab: {
          file: file('events.jsonl'),
          ...(monitoring.statsd ? { statsd: { ...monitoring.statsd, prefix: `${prefix}.artillery` } } : {}),
        },
      },
    },
    scenarios: script.scenarios.map((sc) => ({
      ...sc,
      beforeScenario: 'labArrival',
      flow: sc.flow.map((step) => ({ get: { ...step.get, afterResponse: 'labResponse' } })),
    })),
  };
  fs.writeFileSync(file('artillery-run.yml'), toYaml(runScript));

  const events = [];
  const startedAt = new Date().toISOString();
  let artilleryPid = null;
  const nodesOf = state ? deploymentNodes(state) : () => ({});
  monitoring.watch(() => ({ ...nodesOf(), generator: artilleryPid }));
  const generatorSamples = () =>
    monitoring.samples.filter((s) => s.nodes.generator).map((s) => ({ at: s.at, ...s.nodes.generator }));

  const finish = (status, report) => {
    const summary = summarize({
      endpoint,
      scenario,
      deployment: state ? deployment : null,
      target,
      phases,
      status,
      startedAt,
      endedAt: new Date().toISOString(),
      resultsDir,
      report,
      events,
      generatorSamples: generatorSamples(),
      machine,
    });
    summary.monitoring = monitoring.sources;
    writeJson('summary.json', summary);
    return summary;
  };

  // Ctrl-C: stop Artillery, keep what was gathered as a partial summary, then tear down.
  let artillery = null;
  const releaseRun = own(() => {
    if (artillery) artillery.stop();
    if (interrupted()) {
      const s = finish('interrupted', null);
      try {
        require('./report').writeReport(resultsDir);
      } catch (err) {
        log(`no report for the partial run: ${err.message}`);
      }
      log(`interrupted: partial results in ${s.resultsDir}`);
    }
  });

  log(`running ${endpoint} ${scenario} against ${target} for ${totalS} s (${phases.length} phase(s))`);
  const t0 = Date.now();
  const tty = process.stderr.isTTY;
  const draw = (final) => {
    const intervals = events.filter((e) => e.type === 'stats').map((e) => e.stats);
    const line = progressLine({
      elapsedS: (Date.now() - t0) / 1000,
      totalS,
      phases,
      totals: totalsFrom(intervals),
      lastInterval: intervals[intervals.length - 1],
    });
    if (tty) process.stderr.write(`\r\x1b[K${line}${final ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  };
  const ticker = tty ? setInterval(draw, 1000) : null;

  let result;
  try {
    artillery = runArtillery({
      scriptFile: file('artillery-run.yml'),
      outFile: file('artillery.json'),
      eventsFile: file('events.jsonl'),
      logFile: file('artillery.log'),
      onStart: (pid) => (artilleryPid = pid),
      onEvent: (e) => {
        events.push(e);
        if (!tty && e.type === 'stats') draw(false);
      },
    });
    result = await artillery.done;
  } catch (err) {
    // Interrupted: the Ctrl-C cleanup writes the partial summary, not this failure.
    if (!interrupted()) finish('failed', null);
    throw err;
  } finally {
    if (ticker) clearInterval(ticker);
  }
  if (tty) draw(true);
  releaseRun();
  // One more StatsD flush, so the service's last second is in the series; then stop the
  // sampling before the deployment goes down (its exit is not part of the run).
  await sleep(1200);
  await monitoring.stop();
  const summary = finish('completed', result.report);
  const reportFile = require('./report').writeReport(resultsDir);
  log(`report: ${reportFile}`);
  if (values.json) return { stdout: JSON.stringify(summary, null, 2) };
  return { stdout: renderSummary(summary) };
}

scenarioCommand.usage = USAGE;
module.exports = scenarioCommand;
