'use strict';

const fs = require('node:fs');
const { GENERATORS } = require('../generators');
const { startOnLoadNodes } = require('../generators/load-nodes');
const { createProgress } = require('./progress');
const { identify } = require('../ownership/identity');
const { own } = require('../ownership/cleanups');
const { requestNames } = require('../scenario/model');
const { scriptNotes } = require('./plan-text');

// The generator's plan, from its plugin (lab/generators/): the scenario model's phases (open
// loop), or one phase of the scenario's length with N connections (closed loop), or the
// signal stages.
function planGeneration(run) {
  const { p } = run;
  const g = GENERATORS[p.generator];
  run.genPlan = {
    ...g.plan(p.model, {
      target: run.target,
      targets: run.targets,
      values: p.values,
      signal: p.signalPlan,
      statsd: run.monitoring.statsd ? { ...run.monitoring.statsd, prefix: `${run.prefix}.artillery` } : null,
      tls: tlsPlan(run),
    }),
    targets: run.targets,
  };
  // The script the run is, as Artillery would run it (a user's own script is kept as it is).
  if (p.model && p.model.source.kind === 'catalogue') {
    const { toArtillery, toYaml } = require('../scenario/to-artillery');
    fs.writeFileSync(
      run.file('script.yml'),
      toYaml(toArtillery(p.model, { target: run.target }), [`${p.endpoint} ${p.scenario} against ${run.target}`]),
    );
  } else if (p.model)
    fs.copyFileSync(p.model.source.file, run.file(`script${p.model.source.file.match(/\.\w+$/)?.[0] ?? '.yml'}`));
  return run.genPlan;
}

// An https:// target's TLS for the generator: the CA the deployment's entry was made with
// (--tls: the lab's own), or the user's (--tls-ca), or none (the machine's CAs); --insecure
// or a script's config.tls.rejectUnauthorized: false checks nothing, and says so.
function tlsPlan(run) {
  const { p } = run;
  if (!String(run.target).startsWith('https:')) return null;
  const st = run.state?.tls ?? run.watched?.state?.tls ?? null;
  const caFile = st?.ca ?? p.values['tls-ca'] ?? null;
  const insecure = Boolean(p.values.insecure) || p.model?.tls?.rejectUnauthorized === false;
  if (insecure) run.log('TLS certificates are not checked (--insecure, or the script says so)');
  return {
    caFile,
    ca: caFile ? fs.readFileSync(caFile, 'utf8') : null,
    insecure,
    http2: Boolean(st?.http2 ?? p.values.http2),
  };
}

// What the run is, before its load starts: a run killed with SIGKILL has no summary, and
// `report` rebuilds one from this and its records (lab/results/rebuild.js).
function writeRunRecord(run, startedAt) {
  const { p } = run;
  run.writeJson('run.json', {
    endpoint: p.endpoint,
    scenario: p.scenario,
    deployment: run.state ? p.deployment : null,
    target: run.target,
    phases: run.genPlan.phases,
    generator: { name: p.generator, loop: GENERATORS[p.generator].loop, precision: GENERATORS[p.generator].precision },
    thresholds: p.thresholds.map((t) => t.text),
    expectStatus: p.expect.text,
    requestNames: p.model ? requestNames(p.model) : null,
    startedAt,
    runner: identify(process.pid),
  });
}

// The generator runs; its records stream to records.jsonl (kept when the run is cut short)
// and to the progress listener. extra: { dashboardUrl }.
async function generate(run, extra = {}) {
  const { p, log } = run;
  const genPlan = run.genPlan;
  const recordsFile = run.file('records.jsonl');
  fs.writeFileSync(recordsFile, '');
  const totalS = genPlan.phases.reduce((a, ph) => a + ph.duration, 0);
  const untilRequests = genPlan.durationMs === undefined && genPlan.requests ? genPlan.requests : null;
  const progress = createProgress({
    phases: genPlan.phases,
    totalS,
    closed: p.closed || p.signal,
    participants: p.signal,
    requests: untilRequests,
    suffix: extra.dashboardUrl ? `live ${extra.dashboardUrl}` : '',
  });
  log(
    `running ${p.endpoint} ${p.scenario} against ${run.target} with ${p.generator} ${
      untilRequests ? `until ${untilRequests} virtual users are done` : `for ${totalS} s`
    } (${genPlan.phases.length} phase(s))`,
  );
  for (const n of scriptNotes(p.model, p.generator)) log(`note: ${n}`);
  const startedAt = new Date().toISOString();
  run.startedAt = startedAt;
  writeRunRecord(run, startedAt);
  // The run ends by its plan's time plus a drain, whatever the script or the server does:
  // counted from the first phase (a load node's start-up is not the run's), the generator
  // is stopped at that deadline and what it measured is kept.
  const deadline = deadlineOf(genPlan, { totalS, untilRequests, timeoutS: p.model?.timeoutS });
  const watch = deadlineWatch(deadline, () => {
    log(`the run passed its deadline (${deadline.text}): stopping the generator`);
    gen.stop();
  });
  const onRecord = (r) => {
    fs.appendFileSync(recordsFile, `${JSON.stringify(r)}\n`);
    progress.onRecord(r);
    // The load's own clock starts at its first phase: what is timed from it (a profile's
    // window: lab/run/profile.js) starts from there.
    if (r.type === 'phase' && r.index === 0) for (const fn of run.onLoadStart || []) fn(r.at);
    watch.onRecord(r);
  };
  // --load-nodes: the same generator as tasks on the swarm's nodes, coordinated from here.
  const gen = p.loadNodes
    ? startOnLoadNodes(
        { ...genPlan, mode: p.closed ? 'closed' : 'open' },
        {
          nodes: p.loadNodes,
          env: { ...process.env, ...(run.runtime?.env || {}) },
          onRecord,
          log,
          onStarting: progress.starting,
          port: p.ports.coordinator,
        },
      )
    : GENERATORS[p.generator].start(genPlan, { dir: run.dir, onRecord });
  run.monitoring.watch(() => ({ ...run.nodesOf(), ...(gen.pid ? { generator: gen.pid } : {}) }));
  if (gen.samples) run.loadNodeSamples = gen.samples;
  // Ctrl-C: the generator stops and reports what it measured; the summary is written by
  // the interrupt's cleanup (lab/commands/scenario/index.js).
  const release = own(() => gen.stop());
  let result;
  try {
    result = await gen.done;
  } finally {
    watch.clear();
    progress.stop();
  }
  release();
  if (watch.overran) result = { ...result, status: `stopped at its deadline (${deadline.text})` };
  return { startedAt, result, gen };
}

// How long a run may take from its first phase: the plan, then a drain for the answers and
// virtual users still under way, of twice the request time-out and at least 30 s. A closed
// loop bounded by a request count alone has no plan time, so no deadline.
const DRAIN = Object.freeze({ minS: 30, timeouts: 2 });
function deadlineOf(genPlan, { totalS, untilRequests, timeoutS = 10 }) {
  const planS = genPlan.durationMs !== undefined ? genPlan.durationMs / 1000 : untilRequests ? null : totalS;
  if (!(planS > 0)) return null;
  const drainS = Math.max(DRAIN.minS, DRAIN.timeouts * timeoutS);
  return { s: planS + drainS, text: `the plan's ${planS} s and a drain of ${drainS} s` };
}

// The deadline's clock: started by the first phase's record (at its `at`), stopped by the
// generator's last record (`done`: what it measured is all in). What the generator does after
// it is its own exit, not the run's load: removing load tasks from a swarm takes seconds on a
// busy cluster (timed in the run's log), and is not to be judged against the plan's drain.
function deadlineWatch(deadline, onOverrun, now = Date.now) {
  let timer = null;
  let ended = false;
  const w = {
    overran: false,
    onRecord(r) {
      if (r.type === 'done') return w.clear();
      if (!deadline || ended || timer || r.type !== 'phase' || r.index !== 0) return undefined;
      timer = setTimeout(
        () => {
          w.overran = true;
          onOverrun();
        },
        Math.max(0, r.at + deadline.s * 1000 - now()),
      );
      timer.unref();
      return undefined;
    },
    clear() {
      ended = true;
      clearTimeout(timer);
    },
  };
  return w;
}

module.exports = { planGeneration, generate, deadlineOf, deadlineWatch, DRAIN };
