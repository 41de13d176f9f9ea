'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { holdDir } = require('../../ownership/lock');
const { adoptStateDir } = require('../../ownership/adopt');
const { claimDir } = require('../../ownership/dirs');
const { own, interrupted } = require('../../ownership/cleanups');
const { runDirOf, pathSlug } = require('../../results/run-dir');
const { interruptChild } = require('../../run/child');
const { maybeJson } = require('../../results/files');
const describeMachine = require('../../../common/machine');
const { rankCandidates } = require('../../choose/candidates');
const { monthlyCost } = require('../../choose/price');
const { candidateText, costText } = require('../../report/choice-text');
const { noneHeldText } = require('../../choose/check');
// (The sweeps measured, and the candidates checked in rank order.)
const { sweepRecord, measureSweeps } = require('../../choose/sweeps');
const { screenAndSweep, unsweptSweep } = require('../../choose/screened');
const { checkInOrder } = require('../../choose/checks');
const { autoscaleOf } = require('../../choose/autoscale-check');
const { whyOf } = require('../../choose/why');
const { writeManifests, hpaOf, hpaMaxOf } = require('../../choose/manifests');
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
    // (At the defaults, each unit's screen and its bound: ../../choose/screen.js.)
    ...(p.screen ? { screens: [] } : {}),
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
    // (A screen under way into out.screens, a sweep into out.sweeps: current.kind.)
    const kept = out[current?.kind ?? 'sweeps'];
    if (current && !kept.some((x) => x.id === current.s.id)) {
      const partial = maybeJson(path.join(current.sdir, 'capacity.json'));
      kept.push(sweepRecord(current.s, current.sdir, partial));
    }
    out.status = interrupted() ? 'interrupted' : 'failed';
    out.text = `the choice was ${out.status} ${out.checks.length ? 'while checking' : 'while measuring'}: nothing was chosen; what it measured is kept (${out.screens ? `${out.screens.length} screen(s); ` : ''}${out.sweeps.map((x) => `${x.id}: ${x.points.filter((p) => p.maxRate !== null).length} count(s) measured${x.points.some((p) => p.heldAtLeast) ? `, ${x.points.filter((p) => p.heldAtLeast).length} cut short` : ''}`).join('; ') || 'no sweep'})`;
    out.candidates = [];
    write();
    log(`the choice was ${out.status}; what it measured is in ${path.join(dir, 'choice.json')}`);
  });
  log(planText(p));

  // Measure (or read, --from): the sweep under way tracked for the cleanup above. At the
  // defaults, each unit screened first, and swept in the order of its bound
  // (../../choose/screened.js): a unit left unswept is a candidate of none, with why.
  const io = { out, write, log, track: (c) => (current = c) };
  let sweeps;
  if (p.screen) {
    const screened = await screenAndSweep(p, dir, io);
    sweeps = [...screened.sweeps, ...screened.unswept.map(unsweptSweep)];
  } else sweeps = await measureSweeps(p, dir, io);

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
  const chosen = await checkInOrder(p, ranked.candidates, dir, { out, write, log });
  if (!chosen) {
    out.status = 'completed';
    out.text = noneHeldText(out.checks, p);
    keep();
    write();
    return done(out, dir, p, 1);
  }

  // Say why, check the autoscaler it writes, and write it out.
  await completeChoice(p, chosen, dir, { out, write, log });
  keep();
  write();
  return done(out, dir, p, 0);
}

// The choice made: why its knee is where it is, the HPA it writes (run under the lab's
// autoscaler: ../../choose/autoscale-check.js), its manifests and cost, and its sentence, all
// into `out` (choice.json, written as each step ends).
async function completeChoice(p, chosen, dir, { out, write, log }) {
  const check = out.checks.at(-1);
  out.choice = { ...chosen, result: undefined };
  out.why = whyOf(chosen.result.knee, { replicas: chosen.replicas * chosen.cpuPerReplica });
  const hpa = hpaOf(
    { replicas: chosen.replicas, rate: p.rate, holds: chosen.holds },
    {
      utilizationPct: check.replicaCpuPct,
      maxReplicas: hpaMaxOf(chosen, 2 * p.rate * (1 + p.headroom), p.maxReplicas),
      downWindowS: p.downWindowS,
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
