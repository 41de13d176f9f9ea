'use strict';

// A choice's candidates checked in rank order (lab/commands/choose/): each deployed at its
// count and held at the rate, then at the rate with its headroom (./check.js), the next one
// when it does not hold, --tries at most; what choice.json keeps of each check.

const path = require('node:path');
const { checkOrder } = require('./candidates');
const { checkCandidate } = require('./check');
const { recipeOf } = require('../capacity/plan');

// -> the first candidate that held, with its check ({ ...c, result: { ...check, deployment,
// sweep } }), or null. out.checks gets each check's record, written (write()) as it ends.
async function checkInOrder(p, candidates, dir, { out, write, log }) {
  for (const c of checkOrder(candidates, p.maxReplicas, p.price).slice(0, p.tries)) {
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
    out.checks.push(checkRecord(c, r));
    write();
    if (r.verdict.held) return { ...c, result: { ...r, deployment, sweep: s } };
  }
  return null;
}

// What choice.json keeps of a candidate's check (`c`, its verdict and levels `r`): held or not,
// its figures and the answers they rest on, the replicas' memory and CPU (the HPA's target),
// and the rate with its headroom when it was measured.
function checkRecord(c, r) {
  return {
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
    // (The HPA's target: the replicas' CPU at the rate with its headroom when it held there,
    // the most the count is promised to take. At the rate itself, the count is at that target
    // by construction, and one replica more, each with its own idle cost, never came back down
    // to it: seen, "1 to 2 replicas at 50% CPU, still at 2 at the end".)
    ...cpuAt(r.headroom?.ok ? r.headroom : r.check, c),
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
  };
}

const cpuAt = (level, c) => ({ replicaCpuPct: replicaCpuPct(level, c), replicaCpuAtRate: level.rate ?? null });

// The replicas' CPU in a level of the check, their mean as a share of what they are given
// (an HPA's).
function replicaCpuPct(level, c) {
  const cores = level.cost?.tierCores?.replicas;
  if (cores == null) return null;
  return Math.round((cores / (c.replicas * c.cpuPerReplica)) * 1000) / 10;
}

module.exports = { checkInOrder, checkRecord, replicaCpuPct };
