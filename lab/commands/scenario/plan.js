'use strict';

// `npm run scenario`: the whole command line (or a parent's job: ../../run/job.js) checked
// once before anything is created, started or deleted, and turned into the plan the run's
// stages read (./index.js runs it; --plan and --print say it).

const { planDeploy } = require('../../runtime/deploy-plan');
const { GENERATORS } = require('../../generators');
const { assertClaimable } = require('../../ownership/dirs');
const { parseExpect } = require('../../results/expect-status');
const { assertElastic } = require('../../elastic/flags');
const { appOf } = require('../../app/flags');
const { rolloutBounds } = require('../../elastic/replicas');
const { assertChromiumForPlaywright } = require('../../chromium');
// (What the run sends, and its load: ../../scenario/what.js, ../../run/load-plan.js.)
const { methodsOf, refuse, wordsOf, scenarioOf } = require('../../scenario/what');
const { generatorOf, thresholdsOf, nodeOf, profilePlan, elasticPlan } = require('../../run/load-plan');
// (Its flags' table: ../../run/scenario-flags.js.)
const { USAGE, HELP, COMMAND } = require('../../run/scenario-flags');

// The whole command line checked before anything is created, started or deleted, and turned
// into what the run's stages need (lab/run/).
function plan(argv) {
  const { help, values, given, positionals } = COMMAND.read(argv);
  if (help) return { help: true };
  const words = wordsOf(positionals, values, USAGE);
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

module.exports = { USAGE, HELP, COMMAND, plan };
