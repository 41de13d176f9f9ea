'use strict';

const path = require('node:path');
const { contextValues } = require('../topology/context');
const { runtimeFor } = require('../runtime');
const { placeDeployment } = require('../runtime/deploy-plan');
const { describeCap } = require('../topology/caps');
const { own, interrupted } = require('../ownership/cleanups');
const { runLevel } = require('../capacity/level');
const { restartText } = require('../runtime/pm2-restarts');
const { installNode } = require('../runtime/node-versions');
const { labError } = require('../../common/errors');

// The choice checked (npm run choose): the candidate deployed, capped as it was measured, and
// held at the target rate for the stated time with the SLO judged on the whole window after
// its warm-up (one level of the capacity search's kind: lab/capacity/level.js); then, when it
// held, one level at the rate its count is expected to hold (its knee), profiled, to say what
// sets it. The deployment is taken down after, whatever happened.
//   p: the choice's plan (lab/commands/choose/plan.js); c: the candidate; deployment: its
//   deployment at its count, resolved as its sweep resolved it; sweep: its sweep's capacity
//   plan (levelWords, passed, expect, warmup); dir: where the levels' runs go.
// Returns { check, verdict, knee, caps (as applied, per node) }.
async function checkCandidate(p, c, deployment, sweep, dir, log) {
  // (The caps its sweep was measured with: with --sizes, each sweep's replica size its own.)
  const { ports, graph, caps } = placeDeployment(deployment, { portBase: p.ctx.portBase, caps: sweep.values.cap });
  const tag = `${c.label} x${c.replicas}`;
  const runtime = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host, log });
  runtime.assertNotUp();
  const release = own(() => runtime.down());
  const level = (rate, holdS, name, more = {}) =>
    runLevel({
      levelWords: sweep.levelWords,
      passed: { tokens: sweep.passed.tokens, values: { ...sweep.passed.values, ...more } },
      target: state.url,
      rate,
      warmupS: sweep.warmupS,
      holdS,
      dir: path.join(dir, name),
      slos: p.slos,
      expect: sweep.expect,
      values: contextValues(p.ctx),
    });
  let state = null;
  try {
    // (A candidate of a sweep on another Node, choose --node: the check runs its service on
    // that Node too; installed first when a --from choice never ran it here.)
    const node = sweep.nodes ? installNode(sweep.nodes[0], { log }) : null;
    log(`check: deploying ${tag}`);
    for (const [node, cap] of Object.entries(caps)) log(`check: capping ${node}: ${describeCap(cap)}`);
    state = await runtime.up(deployment, ports, {
      graph,
      caps,
      probe: !p.values['no-probe'],
      statements: Boolean(deployment.stores?.length),
      // (The knee's level is profiled at --profile's default interval: lab/profile/flags.js.)
      profile: 1000,
      ...(node ? { serviceNode: node.binary } : {}),
    });
    log(`check: ${tag} at ${p.rate}/s for ${p.holdS} s (after ${sweep.warmupS} s of warm-up)`);
    const held = await level(p.rate, p.holdS, 'check');
    let verdict = checkVerdict(held, p);
    log(`check: ${verdict.text}`);
    // What the choice promises is the rate with its headroom (the count was chosen to hold
    // it): measured too, for as long, once the rate itself held. (It was once only predicted.)
    let headroom = null;
    if (verdict.held && p.headroom > 0) {
      const rate = headroomRate(p);
      log(`check: ${tag} at ${rate}/s, the rate with its ${Math.round(p.headroom * 100)}% headroom, for ${p.holdS} s`);
      headroom = await level(rate, p.holdS, 'check-headroom');
      const hv = checkVerdict(headroom, { ...p, rate });
      log(`check: the headroom: ${hv.text}`);
      verdict = {
        ...hv,
        held: hv.held,
        text: hv.held
          ? `${verdict.text}, and ${hv.text.replace(/^held /, '')} (its ${Math.round(p.headroom * 100)}% headroom)`
          : `${verdict.text}, but the rate with its ${Math.round(p.headroom * 100)}% headroom ${hv.text.replace(/^did not hold /, 'did not hold: ')}`,
      };
    }
    let knee = null;
    // (The profile is the runtime probe's: without it, nothing says what sets the knee.)
    if (verdict.held && p.values['no-probe']) log('why: no profile at the knee (--no-probe)');
    if (verdict.held && !p.values['no-probe']) {
      const rate = Math.round(c.holds * 10) / 10;
      const holdS = sweep.holdFor(rate);
      log(`why: one level at ${rate}/s, what ${c.replicas} replica(s) are expected to hold, profiled for ${holdS} s`);
      // (A level that cannot run keeps the choice that held: said, with why, not thrown.)
      try {
        knee = await level(rate, holdS, 'knee', { profile: true });
      } catch (err) {
        if (interrupted()) throw err;
        knee = { rate, failed: err.message };
        log(`why: no profile at the knee: ${err.message}`);
      }
    }
    return { check: held, headroom, verdict, knee, caps };
  } finally {
    await runtime.down();
    release();
  }
}

// Held or not, and the sentence: the SLO's thresholds on the whole window, the answers
// counted, no process restarted; a generator that could not launch the rate makes the check
// say nothing of the deployment.
function checkVerdict(l, p) {
  const broke = (l.thresholds || []).filter((t) => !t.ok).map((t) => t.text);
  // (How many answers the p99 rests on, said: a p99 of 50 answers is the second slowest.)
  const figures = `p99 ${l.latencyMs?.p99 ?? '-'} ms of ${l.answered ?? 0} answers, errors ${l.errorsPct ?? '-'}%, ${l.answeredPerS}/s answered`;
  if (l.generatorBound)
    return { held: false, inconclusive: true, text: `no check: ${l.generatorBound}; the rate was never offered` };
  if (l.ok)
    return {
      held: true,
      text: `held ${p.rate}/s for ${l.holdS} s under ${p.slos.map((s) => s.text).join(' and ')} (${figures})`,
    };
  const why = [
    ...broke,
    ...(l.restarts ? [`a process restarted (${restartText(l.restarts)})`] : []),
    ...(l.answered ? [] : ['nothing answered']),
  ];
  return {
    held: false,
    text: `did not hold ${p.rate}/s for ${l.holdS} s: ${why.join(', ') || 'the SLO broke'} (${figures})`,
  };
}

// The rate with its headroom, as the candidates were chosen to hold it (lab/choose/candidates.js).
const headroomRate = (p) => Math.round(p.rate * (1 + p.headroom) * 10) / 10;

// Why nothing was chosen once checked: the prediction was too kind when a check broke the SLO;
// a check the generator could not drive says nothing of the deployment, and is said as such
// (issue 82: it once ended with "the prediction was too kind" too).
function noneHeldText(checks, p) {
  const each = checks.map((k) => `${k.label} x${k.replicas}: ${k.text}`).join('; ');
  if (checks.length && checks.every((k) => k.inconclusive))
    return `no check could offer ${p.rate}/s (${each}): the generator, not the deployment, was the limit, so nothing was chosen; run the choice on a machine with a core free for the generator`;
  const why = checks.some((k) => k.inconclusive)
    ? 'the prediction was too kind where a check broke the SLO, and the others could not offer the rate'
    : 'the prediction was too kind';
  return `no candidate held ${p.rate}/s in its check (${each}): ${why}; try more --tries, a larger --headroom, or more counts (--replicas)`;
}

// The check's percentile rests on enough answers: at least 100, and at least one beyond the
// percentile (p99: 100; p99.9: 1,000), at the target rate for --hold. (A check's p99 of 50
// answers, the second slowest, once passed for one.)
function minAnswers(slos) {
  let n = 100;
  for (const t of slos) {
    const q = /^p(\d+(?:\.\d+)?)$/.exec(t.metric ?? '');
    if (q && Number(q[1]) < 100) n = Math.max(n, Math.ceil(1 / (1 - Number(q[1]) / 100)));
  }
  return n;
}
function checkAnswers(slos, values, defaultHoldS) {
  const holdS = values.hold ?? defaultHoldS;
  const need = minAnswers(slos);
  if (values.rate * holdS >= need) return;
  throw labError(
    'LAB_ERR_FLAG_VALUE',
    'hold',
    values.hold !== undefined ? `${values.hold} s` : `${holdS} s (the default)`,
    `too short for the check's percentile: ${values.rate}/s for ${holdS} s gives ${Math.round(values.rate * holdS)} answers, and ${slos.map((s) => s.text).join(' and ')} needs ${need} at least; give --hold ${Math.ceil(need / values.rate)}s or more`,
  );
}

module.exports = { checkCandidate, checkVerdict, headroomRate, noneHeldText, checkAnswers, minAnswers };
