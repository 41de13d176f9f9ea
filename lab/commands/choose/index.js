'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { holdDir } = require('../../ownership/lock');
const { adoptStateDir } = require('../../ownership/adopt');
const { claimDir } = require('../../ownership/dirs');
const { own, interrupted } = require('../../ownership/cleanups');
const { runDirOf, pathSlug } = require('../../results/run-dir');
const { reasonOf, interruptChild } = require('../../run/child');
const { maybeJson } = require('../../results/files');
const describeMachine = require('../../../common/machine');
const { rankCandidates, checkOrder } = require('../../choose/candidates');
const { monthlyCost } = require('../../choose/price');
const { candidateText, costText } = require('../../report/choice-text');
const { checkCandidate, noneHeldText } = require('../../choose/check');
const { autoscaleOf } = require('../../choose/autoscale-check');
const { countsText } = require('../../choose/plan-text');
const { whyOf } = require('../../choose/why');
const { writeManifests, hpaOf, hpaMaxOf } = require('../../choose/manifests');
const { recipeOf } = require('../../capacity/plan');
const { startSweep } = require('../../choose/dimensions');
const { choicePage } = require('../../report/choice-html');
const { USAGE, plan, planText, planJson, headOf } = require('./plan');

// `npm run choose`: the deployment to choose for a service, an SLO and a target rate
// (docs/choose.md). Measure: one capacity sweep a shape (`capacity --replicas`, a child run
// given its job: its folder, page and resumption are a search's like any other). Predict: the
// candidates ranked (lab/choose/candidates.js). Check: the first held at the rate, the next
// when it does not hold (lab/choose/check.js). Write: choice.json, its page, the compose file
// and the Kubernetes manifests (lab/choose/manifests.js). choice.json is written after every
// step: an interrupted choice keeps what it measured.

// choice.json's version (docs/choice.schema.json): a reader checks it.
const VERSION = 1;

// What choice.json keeps of a sweep stopped before its end: the counts it measured (each
// deployment searched so far, with what it held), its status. A count whose search was cut
// short keeps the highest rate one of its levels held, as "held at least" (heldAtLeast).
function sweepRecord(s, sdir, result) {
  const points = (result?.deployments || [])
    .filter((d) => d.replicas != null)
    .map((d) => ({ replicas: d.replicas, maxRate: d.maxRate ?? null, ...(d.bound ? { bound: d.bound } : {}) }));
  for (const l of result?.levels || []) {
    if (l.replicas == null || !l.ok || points.some((p) => p.replicas === l.replicas && p.maxRate !== null)) continue;
    const p = points.find((x) => x.replicas === l.replicas);
    if (p) p.heldAtLeast = Math.max(p.heldAtLeast ?? 0, l.rate);
    else points.push({ replicas: l.replicas, maxRate: null, heldAtLeast: l.rate, cut: true });
  }
  return { id: s.id, dir: sdir, status: result?.status ?? 'not started', points };
}

// One sweep's points from its capacity.json: the counts measured, what each held, the
// replicas' memory; its sentence when the search found the service changing under it.
function sweepOf(s, result) {
  const points = (result.scaling?.points || []).map((pt) => {
    const v = (result.deployments || []).find((d) => d.replicas === pt.replicas) || {};
    return { ...pt, memoryMiB: v.replicaMemoryMiB ?? null };
  });
  return { ...s, node: s.node?.version ?? null, points, notRanked: result.notRanked ?? null };
}

async function choose(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };
  if (p.values.plan) return { stdout: p.values.json ? JSON.stringify(planJson(p), null, 2) : planText(p) };
  holdDir(p.ctx.stateDir, '--state-dir');
  adoptStateDir(p.ctx.stateDir);
  const dir = runDirOf(p.values, `choose-${pathSlug(p.word)}`);
  claimDir(dir, p.values['run-dir'] ? '--run-dir' : 'the run folder');
  const started = Date.now();
  const out = {
    version: VERSION,
    ...headOf(p),
    app: p.values.app ? path.basename(p.values.app) : null,
    slos: p.slos.map((s) => s.text),
    status: 'measuring',
    sweeps: [],
    candidates: [],
    choice: null,
    checks: [],
    autoscaleCheck: null,
    why: null,
    files: [],
    text: 'measuring',
    machine: describeMachine(),
  };
  const write = () => {
    out.seconds = Math.round((Date.now() - started) / 100) / 10;
    fs.writeFileSync(path.join(dir, 'choice.json'), `${JSON.stringify(out, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, 'choice.html'), choicePage(out));
  };
  // The sweep under way: { child, s, sdir }. A choice stopped (Ctrl-C, a failure) keeps what
  // its sweeps measured, the one under way included, and gives no verdict: nothing was chosen.
  let current = null;
  const keep = own(async () => {
    await interruptChild(current?.child);
    if (current && !out.sweeps.some((x) => x.id === current.s.id)) {
      const partial = maybeJson(path.join(current.sdir, 'capacity.json'));
      out.sweeps.push(sweepRecord(current.s, current.sdir, partial));
    }
    out.status = interrupted() ? 'interrupted' : 'failed';
    out.text = `the choice was ${out.status} ${out.checks.length ? 'while checking' : 'while measuring'}: nothing was chosen; what it measured is kept (${out.sweeps.map((x) => `${x.id}: ${x.points.filter((p) => p.maxRate !== null).length} count(s) measured${x.points.some((p) => p.heldAtLeast) ? `, ${x.points.filter((p) => p.heldAtLeast).length} cut short` : ''}`).join('; ') || 'no sweep'})`;
    out.candidates = [];
    write();
    log(`the choice was ${out.status}; what it measured is in ${path.join(dir, 'choice.json')}`);
  });
  log(planText(p));

  // Measure (or read, --from).
  const sweeps = [];
  for (const s of p.sweeps) {
    let result;
    if (p.from) result = s.fromResult;
    else {
      const sdir = path.join(dir, 'sweeps', s.id);
      log(`measure ${s.id}: capacity at ${countsText(p)} (its folder: ${sdir})`);
      const { child, done } = startSweep(s, sdir);
      current = { child, s, sdir };
      const r = await done;
      // (Ctrl-C: the cleanup above keeps this sweep's figures and ends the choice: no verdict.)
      if (interrupted()) await new Promise(() => {});
      current = null;
      result = maybeJson(path.join(sdir, 'capacity.json'));
      // A sweep cut short (a failure) gives its shape no candidate, with why: its figures
      // were not all measured. (An interrupt stops the choice itself.)
      if (result?.status !== 'completed') {
        const why = `its capacity sweep ${result ? `was ${result.status}` : 'wrote nothing'}: ${reasonOf(r.tail, r.code)}`;
        log(`measure ${s.id}: ${why}`);
        out.sweeps.push({ ...sweepRecord(s, sdir, result), failed: why });
        sweeps.push({ ...s, node: s.node?.version ?? null, points: [], failed: why });
        write();
        continue;
      }
    }
    const sw = sweepOf(s, result);
    sweeps.push(sw);
    out.sweeps.push({
      id: s.id,
      dir: s.dir ?? (p.from ? path.join(p.from, 'sweeps', s.id) : path.join(dir, 'sweeps', s.id)),
      points: sw.points,
      ...(sw.notRanked ? { notRanked: sw.notRanked } : {}),
    });
    write();
  }

  // Predict.
  const ranked = rankCandidates(sweeps, {
    rate: p.rate,
    headroom: p.headroom,
    maxReplicas: p.maxReplicas,
    price: p.price,
  });
  out.candidates = ranked.candidates;
  for (const c of ranked.candidates) log(`candidate: ${candidateText(c)}`);
  if (!ranked.choice) {
    out.status = 'completed';
    out.text = ranked.none;
    keep();
    write();
    return done(out, dir, p, 1);
  }

  // Check, in rank order, up to --tries.
  out.status = 'checking';
  write();
  let chosen = null;
  for (const c of checkOrder(ranked.candidates, p.maxReplicas, p.price).slice(0, p.tries)) {
    const s = p.sweeps.find(
      (x) =>
        x.shape === c.shape &&
        x.balancer === c.balancer &&
        (x.node?.version ?? null) === c.node &&
        x.capPct / 100 === c.cpuPerReplica,
    );
    // (The count's deployment, resolved as the sweep's capacity search resolved its own.)
    const sv = s.plan.values;
    const deployment = recipeOf(sv, c.shape, c.replicas, { app: s.plan.app, tls: s.plan.tls });
    const r = await checkCandidate(
      p,
      { ...c, rate: p.rate },
      deployment,
      s.plan,
      path.join(dir, 'checks', `${s.id}-x${c.replicas}`),
      log,
    );
    out.checks.push({
      label: c.label,
      shape: c.shape,
      replicas: c.replicas,
      held: r.verdict.held,
      ...(r.verdict.inconclusive ? { inconclusive: true } : {}),
      text: r.verdict.text,
      dir: r.check.dir,
      p99: r.check.latencyMs?.p99 ?? null,
      errorsPct: r.check.errorsPct,
      answeredPerS: r.check.answeredPerS,
      replicaMemoryMiB: r.check.cost?.replicaMemoryMiB ?? null,
      replicaCpuPct: replicaCpuPct(r.check, c),
      answers: r.check.answered ?? null,
      // The rate with its headroom, measured once the rate held: what the choice promises.
      ...(r.headroom
        ? {
            headroom: {
              rate: r.headroom.rate,
              held: r.headroom.ok,
              p99: r.headroom.latencyMs?.p99 ?? null,
              errorsPct: r.headroom.errorsPct,
              answers: r.headroom.answered ?? null,
              dir: r.headroom.dir,
            },
          }
        : {}),
    });
    write();
    if (r.verdict.held) {
      chosen = { ...c, result: { ...r, deployment, sweep: s } };
      break;
    }
  }
  if (!chosen) {
    out.status = 'completed';
    out.text = noneHeldText(out.checks, p);
    keep();
    write();
    return done(out, dir, p, 1);
  }

  // Say why, and write it out.
  const check = out.checks.at(-1);
  out.choice = { ...chosen, result: undefined };
  out.why = whyOf(chosen.result.knee, { replicas: chosen.replicas * chosen.cpuPerReplica });
  const hpa = hpaOf(
    { replicas: chosen.replicas, rate: p.rate, holds: chosen.holds },
    {
      utilizationPct: check.replicaCpuPct,
      maxReplicas: hpaMaxOf(chosen, 2 * p.rate * (1 + p.headroom), p.maxReplicas),
    },
  );
  out.hpa = hpa;
  // The HPA it writes, run under the lab's autoscaler (../../choose/autoscale-check.js).
  out.status = 'checking-autoscale';
  write();
  out.autoscaleCheck = await autoscaleOf(p, chosen, chosen.result.sweep, hpa, dir, log);
  const memoryMiB = check.replicaMemoryMiB ?? chosen.memoryMiB;
  const written = writeManifests(dir, {
    deployment: chosen.result.deployment,
    caps: chosen.result.caps,
    replicas: chosen.replicas,
    cpuPerReplica: chosen.cpuPerReplica,
    memoryMiB,
    hpa,
    // (Chosen on another Node, choose --node: its images built on that one.)
    node: chosen.node,
  });
  out.files = written.files;
  out.status = 'completed';
  // (With prices, its cost a month from the memory the check measured, when it did.)
  if (p.price) out.choice.cost = monthlyCost({ ...chosen, memoryMiB }, p.price);
  const cost = out.choice.cost ? `, ${costText(out.choice.cost)}` : '';
  out.text = `${chosen.label} x${chosen.replicas}: ${chosen.cores} cores (${chosen.replicas} replica${chosen.replicas > 1 ? 's' : ''} of ${chosen.cpuPerReplica} of a core)${cost} ${expectedText(chosen)}, and it ${check.text}; the autoscaler it writes: ${out.autoscaleCheck.text}`;
  keep();
  write();
  return done(out, dir, p, 0);
}

// What the chosen count is expected to hold, and why: measured, predicted with its interval, or
// (one replica more than a candidate, with no fit) at least what the candidate holds.
function expectedText(c) {
  if (c.from === 'measured' && c.measured)
    return `measured to hold ${c.measured.atLeast ? 'at least ' : ''}${c.measured.rate}/s`;
  if (c.prediction)
    return `predicted to hold ${c.prediction.rate}/s${c.prediction.low !== null ? ` (95%: ${c.prediction.low} to ${c.prediction.high})` : ''}`;
  return `one replica more than a count expected to hold ${c.holds}/s`;
}

// The replicas' CPU in the check, their mean as a share of what they are given (an HPA's).
function replicaCpuPct(level, c) {
  const cores = level.cost?.tierCores?.replicas;
  if (cores == null) return null;
  return Math.round((cores / (c.replicas * c.cpuPerReplica)) * 1000) / 10;
}

function done(out, dir, p, exitCode) {
  const result = { ...out, resultsDir: dir };
  if (p.values.json) return { stdout: JSON.stringify(result, null, 2), exitCode };
  const lines = [
    out.text,
    '',
    ...out.candidates.map((c) => `  ${c.rank ? `${c.rank}.` : '- '} ${candidateText(c)}`),
    ...(out.why ? ['', `why: ${out.why.text}`] : []),
    ...(out.files.length ? ['', `written: ${out.files.map((f) => path.join(dir, f)).join(', ')}`] : []),
    '',
    `Results: ${dir} (choice.html)`,
  ];
  return { stdout: lines.join('\n'), exitCode };
}

choose.usage = USAGE;
module.exports = choose;
