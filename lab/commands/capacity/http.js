'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { holdDir } = require('../../ownership/lock');
const { runtimeFor } = require('../../runtime');
const { adoptStateDir } = require('../../ownership/adopt');
const { serveLive } = require('../../dashboard/live');
const describeMachine = require('../../../common/machine');
const { verdictOf, perCore, notRanked, machineLimit, MACHINE_RULE } = require('../../capacity/verdict');
const { searchDeployment: searchFlow } = require('../../capacity/flow');
const budget = require('../../capacity/budget');
const { own, interrupted } = require('../../ownership/cleanups');
const { openSearchDir, noteWritten } = require('../../capacity/search-dir');
const { deploymentSession } = require('../../capacity/session');
const { scalingNow } = require('../../capacity/scaling');
const { scalingText } = require('../../report/scaling-text');
const { fitUsl, predict } = require('../../capacity/usl');
const { describeCap } = require('../../topology/caps');
const { contextValues } = require('../../topology/context');
const { placeDeployment } = require('../../runtime/deploy-plan');
const { capacityHttpPage, capacityHttpBody, capacityText, levelText } = require('../../report/capacity-http-html');
const { appendStepSummary } = require('../../outputs/step-summary');
const { installNode } = require('../../runtime/node-versions');
const { nodeDifference, nodeRow } = require('../../capacity/node-difference');
const { HELP, FLAG_NAMES, plan, planText, planJson, recipeOf } = require('../../capacity/plan');
const { againSearcher } = require('../../capacity/search-again');
const { moreCounts } = require('../../capacity/counts-for');
const { countStart, SHARE } = require('../../capacity/sweep-start');
const { outValues } = require('../../outputs/flags');
const { readCpuSpeeds, cpuSpeedsText } = require('../../measure/cpu-speeds');

// One deployment: searched level by level, verified, taken down. It is deployed when a level
// must be measured: a level its folder already holds, whole, from a search that was cut short
// (the same settings, --run-dir), is read back instead, so a resumed search replays its own
// steps up to where it stopped (the search is a pure function of its levels: ./search.js).
// (`node`: --node's version this search runs the service on, null for the lab's own.)
// (`again`: searched once more, in a folder of its own beside the first, as
// ../../capacity/search-again.js asks; `from`: a count's start, ../../capacity/sweep-start.js.)
async function searchDeployment(p, name, dir, kit, count = null, node = null, { again = false, from = null } = {}) {
  const { log, seen, saved } = kit;
  const deployment = recipeOf(p.values, name, count, { app: p.app, tls: p.tls });
  // (A sweep's counts each their own name: replicated x3; a Node version's, single on Node
  // 22.23.5. A search run again logs as such; its row keeps the row's own name.)
  const row = count ? `${name} x${count}` : node ? `${name} on Node ${node.version}` : name;
  const tag = again ? `${row} again` : row;
  const folderName = count ? `${name}-x${count}` : node ? `${name}-node-${node.version}` : name;
  const { ports, graph, caps } = placeDeployment(deployment, { portBase: p.ctx.portBase, caps: p.values.cap });
  // (One deadline for the search: the gate between steps, and each step's own time-out.)
  const deadlineMs = Date.now() + p.timeLimitS * 1000;
  const session = deploymentSession({
    deadlineMs,
    newRuntime: () => runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host, log }),
    deploy: (runtime) => {
      log(`${tag}: deploying ${deployment.label}`);
      for (const [node, cap] of Object.entries(caps)) log(`${tag}: capping ${node}: ${describeCap(cap)}`);
      return runtime.up(deployment, ports, {
        graph,
        caps,
        probe: !p.values['no-probe'],
        statements: Boolean(p.profile),
        profile: p.profile ? (p.profile.us ?? 1000) : null,
        ...(node ? { serviceNode: node.binary } : {}),
      });
    },
    dir,
    folder: path.join(dir, again ? `${folderName}-again` : folderName),
    level: {
      levelWords: p.levelWords,
      passed: p.passed,
      slos: p.slos,
      expect: p.expect,
      values: { ...contextValues(p.ctx), ...outValues(p.values) },
    },
    start: p.start,
    warmupS: p.warmupS,
    holdFor: p.holdFor,
    fresh: p.fresh,
    recoveryWaitS: p.recoveryWaitS,
    log,
    tag,
  });
  // Every wait for the service's recovery, the search's and the verification's, kept and said.
  const recoveries = [];
  const recover =
    session.recover &&
    (async (after) => {
      const r = await session.recover(after);
      recoveries.push({ after: after.rate, ...r });
      log(`${tag}: after ${after.rate}/s: ${r.text}`);
      return r;
    });
  // Every level measured, the search's and the verification's, kept as it comes (saved() writes
  // the search's files: nothing measured is lost to a crash or a Ctrl-C).
  // (mark: what the search says of the level, ../../capacity/search.js: { recheck } or none.)
  const measured =
    (role) =>
    async (rate, holdS, mark = {}) => {
      const l = { ...(await session.measure(rate, holdS)), ...mark };
      seen.push({ deployment: tag, ...(count ? { replicas: count } : {}), ...(role ? { role } : {}), ...l });
      // (The rate held, measured again, is said by the verification: ./capacity/verify.js.)
      if (role !== 'again') log(`${tag}: ${role ? `${role}: ` : ''}${levelText(l)}`);
      saved(tag);
      return l;
    };
  try {
    if (from)
      log(
        `${tag}: starting at ${from.start}/s (${SHARE * 100}% of ${from.from.maxRate}/s${from.from.unverified ? ' (held in its search, not verified)' : ''} at ${from.from.replicas} replica(s) scaled to ${count}), steps of ${from.factor}x`,
      );
    const { found, verification } = await searchFlow(p, {
      from,
      measure: measured,
      recover,
      settle: session.settle,
      atRest: session.atRest,
      limit: budget.limiter(p, deadlineMs),
      log,
      tag,
    });
    const v = verdictOf(row, deployment, { ...found, recoveries }, verification, p);
    // (A sweep's row names its count: the preset's own count leaves it out of the label. A
    // version's row its Node, and the versions its processes reported, read from them.)
    if (count)
      return {
        ...v,
        label: `${name} x${count}: ${deployment.label}${node ? `, on Node ${node.version}` : ''}`,
        replicas: count,
        ...(node ? { node: nodeRow(node, seen, tag) } : {}),
        // Where its search started, when the counts before it said (not --start).
        ...(from ? { searchStart: { rate: from.start, factor: from.factor, from: from.from } } : {}),
      };
    if (node)
      return {
        ...v,
        deployment: name,
        label: `${deployment.label}, on Node ${node.version}`,
        node: nodeRow(node, seen, tag),
      };
    return v;
  } finally {
    await session.down();
  }
}

// capacity --replicas: the search at each count (then --replicas-for's, and an outlier once
// more), the law fitted, a prediction at --predict N said before N is measured, then N.
async function sweepReplicas(p, dir, kit, results) {
  const name = p.deployments[0];
  const { log } = kit;
  // (--node with a sweep: its one version, installed first when not cached; every count on it.)
  const node = p.nodes ? installNode(p.nodes[0], { log }) : null;
  const searchCount = againSearcher({
    search: (n, again) => searchDeployment(p, name, dir, kit, n, node, { again, from: countStart(results, n, p) }),
    results,
    saved: kit.saved,
    log,
    label: (n) => `${name} x${n}`,
  });
  for (const n of p.sweep) await searchCount(n);
  for (const n of moreCounts(p, results, (t) => log(`${name}: ${t}`))) await searchCount(n);
  await searchCount.outliers((row) => row.replicas, { precision: p.precision });
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
    await searchCount(p.values.predict);
  }
  return scalingNow(p, results);
}

async function httpCapacity(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: HELP };
  if (p.values.plan) return { stdout: p.values.json ? JSON.stringify(planJson(p), null, 2) : planText(p) };
  holdDir(p.ctx.stateDir, '--state-dir');
  adoptStateDir(p.ctx.stateDir);
  const dir = openSearchDir(p, log);
  const started = Date.now();
  const seen = [];
  const results = [];
  let scaling = null;
  // What the search is doing: searching (its files written after every level), then completed
  // or interrupted (Ctrl-C: the files keep what was measured, and say so).
  let status = 'searching';
  let current = null;
  // Each CPU's speed at the search's start and end (../../measure/cpu-speeds.js): where they
  // differ, the figures can move with them, and the search says so.
  const cpuSpeeds = {};
  // (A sentence only when the CPUs ran apart.)
  const sayIf = (text) => text && log(text);
  const limit = () => (p.sweep ? null : machineLimit(results, os.cpus().length));
  const out = () => ({
    what: p.word,
    app: p.app ? p.app.name : null,
    slos: p.slos.map((s) => s.text),
    status,
    ...(status !== 'completed' && current ? { searching: current } : {}),
    settings: {
      start: p.start,
      floor: p.floor,
      recoveryWaitS: p.fresh ? null : p.recoveryWaitS,
      freshPerLevel: Boolean(p.fresh),
      maxRate: p.maxRate,
      precision: p.precision,
      stopBelow: p.stopBelow ?? null,
      repetitions: p.repetitions,
      warmupS: p.warmupS,
      holdS: p.values.hold ?? null,
      verifyHoldS: p.values['verify-hold'] ?? null,
      maxLevels: p.maxLevels,
      timeLimitS: p.timeLimitS,
    },
    levels: seen,
    deployments: results,
    // The machine, not the deployments, set every limit (or the service changed): not ranked.
    ...(limit() ? { machineLimit: limit() } : {}),
    ...(notRanked(results) ? { notRanked: notRanked(results) } : {}),
    best: limit() ? null : perCore(results),
    machineRule: MACHINE_RULE,
    ...(p.sweep ? { scaling: scaling ?? scalingNow(p, results) } : {}),
    // (A sweep runs on one version: nothing to tell apart.)
    ...(p.nodes && !p.sweep ? { nodeDifference: nodeDifference(results) } : {}),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    machine: describeMachine(),
    cores: os.cpus().length,
    cpuSpeeds,
    cpuSpeedsText: cpuSpeedsText(cpuSpeeds) ?? undefined,
  });
  noteWritten(dir, 'capacity.json');
  noteWritten(dir, 'capacity.html');
  const write = () => {
    const result = out();
    fs.writeFileSync(path.join(dir, 'capacity.json'), `${JSON.stringify(result, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, 'capacity.html'), capacityHttpPage(result));
    return result;
  };
  const kit = {
    log,
    seen,
    saved: (tag) => {
      current = tag ?? null;
      write();
    },
  };
  const keep = own(() => {
    status = interrupted() ? 'interrupted' : 'failed';
    write();
    log(
      `the search was ${status === 'failed' ? 'cut short by a failure' : 'interrupted'}; what it measured is in ${path.join(dir, 'capacity.json')}`,
    );
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
  cpuSpeeds.start = await readCpuSpeeds();
  sayIf(cpuSpeedsText(cpuSpeeds));
  if (p.sweep) scaling = await sweepReplicas(p, dir, kit, results);
  else {
    // (--node: the versions not yet in the lab's cache installed first, each said.)
    const nodes = p.nodes ? p.nodes.map((n) => installNode(n, { log })) : [null];
    const searchRow = againSearcher({
      search: ({ name, node }, again) => searchDeployment(p, name, dir, kit, null, node, { again }),
      results,
      saved: kit.saved,
      log,
      label: ({ name, node }) => (node ? `${name} on Node ${node.version}` : name),
    });
    for (const name of p.deployments) for (const node of nodes) await searchRow({ name, node });
  }
  cpuSpeeds.end = await readCpuSpeeds();
  sayIf(cpuSpeedsText({ end: cpuSpeeds.end }));
  keep();
  status = 'completed';
  const result = write();
  result.resultsDir = dir;
  if (live)
    await live.end(
      String(capacityHttpBody(result)),
      `the search has ended; its page: ${path.join(dir, 'capacity.html')}`,
    );
  // (A count stopped below --stop-below answered what was asked: it does not hold that rate.)
  const exitCode = results.some((r) => r.maxRate === null && r.bound !== 'stop-below') ? 1 : 0;
  // A CI job's page: the search's table, in a code block ($GITHUB_STEP_SUMMARY).
  appendStepSummary(
    `### Capacity of ${result.what}\n\n\`\`\`\n${capacityText(result)}${result.scaling ? `\n\n${scalingText(result.scaling)}` : ''}\n\`\`\`\n\nPage: \`${path.join(dir, 'capacity.html')}\`\n\n`,
  );
  if (p.values.json) return { stdout: JSON.stringify(result, null, 2), exitCode };
  const scaled = result.scaling ? `\n\n${scalingText(result.scaling)}` : '';
  return { stdout: `${capacityText(result)}${scaled}\n\nResults: ${dir}`, exitCode };
}

httpCapacity.usage = HELP;
httpCapacity.plan = plan;
httpCapacity.planText = planText;
httpCapacity.flags = FLAG_NAMES;
httpCapacity.openSearchDir = openSearchDir;
module.exports = httpCapacity;
