'use strict';

// The Horizontal Pod Autoscaler's rule, as Kubernetes publishes it (autoscaling/v2 and the
// controller's algorithm), replayed on the lab's deployments. Pure: decisions from metrics,
// nothing started or stopped here (lab/run/elastic.js applies them).
//
//   desired = ceil(ready × average / target)       the average over the replicas with a figure
//   |average / target - 1| <= tolerance            no change (10% by default)
//   scaling up: replicas with no figure or not ready yet count as 0 (as the HPA's CPU rule);
//   scaling down: replicas with no figure count as exactly at target, unready ones not at all;
//   and when that reverses the direction, or lands within the tolerance: no change.
//   stabilized = clamp(current, min of the recommendations over the up window,
//                               max of the recommendations over the down window)
//   then the policies: up to the most any up-policy allows (selectPolicy Max) since the
//   start of its period, down to the least any down-policy allows, within MIN-MAX.
//
// Kubernetes' defaults: a 15 s sync, a 10% tolerance, no up window, a 300 s down window, up by
// 100% or 4 replicas per 15 s (whichever allows more), down by 100% per 15 s.
const DEFAULTS = Object.freeze({
  syncS: 15,
  tolerance: 0.1,
  upWindowS: 0,
  downWindowS: 300,
  upPolicies: Object.freeze([
    Object.freeze({ type: 'Percent', value: 100, periodS: 15 }),
    Object.freeze({ type: 'Pods', value: 4, periodS: 15 }),
  ]),
  downPolicies: Object.freeze([Object.freeze({ type: 'Percent', value: 100, periodS: 15 })]),
});

// Every time of a rule multiplied by `factor` (--scale 0.1: a 1.5 s sync, a 30 s down window).
function scaledRule(rule, factor) {
  if (factor === 1) return rule;
  const t = (s) => Math.round(s * factor * 1000) / 1000;
  const policies = (ps) => ps.map((p) => ({ ...p, periodS: t(p.periodS) }));
  return {
    ...rule,
    syncS: t(rule.syncS),
    upWindowS: t(rule.upWindowS),
    downWindowS: t(rule.downWindowS),
    upPolicies: policies(rule.upPolicies),
    downPolicies: policies(rule.downPolicies),
  };
}

// The raw recommendation from the replicas' figures. replicas: [{ name, value (null: no
// figure), ready }]; target: the value wanted per replica. -> { average, ratio, raw, why }.
function recommend(replicas, target, tolerance, current) {
  const withFigure = replicas.filter((r) => r.ready && Number.isFinite(r.value));
  if (!withFigure.length) return { average: null, ratio: null, raw: current, why: 'no figure from any ready replica' };
  const sum = withFigure.reduce((a, r) => a + r.value, 0);
  const average = sum / withFigure.length;
  const ratio = average / target;
  if (Math.abs(ratio - 1) <= tolerance) return { average, ratio, raw: current, why: 'within the tolerance' };
  const missing = replicas.filter((r) => r.ready && !Number.isFinite(r.value)).length;
  const unready = replicas.filter((r) => !r.ready).length;
  if (!missing && !(ratio > 1 && unready)) {
    return { average, ratio, raw: Math.ceil(ratio * withFigure.length), why: null };
  }
  // The conservative rebalance: going up, the others count as idle; going down, the ones with
  // no figure count as at target and the unready ones are left out.
  const up = ratio > 1;
  const n = withFigure.length + missing + (up ? unready : 0);
  const rebalanced = (sum + (up ? 0 : missing * target)) / n / target;
  if (Math.abs(rebalanced - 1) <= tolerance || rebalanced > 1 !== up) {
    return { average, ratio, raw: current, why: 'no change once replicas without a figure are counted' };
  }
  return { average, ratio, raw: Math.ceil(rebalanced * n), why: null };
}

// How far the policies let one direction go from `current` now, given the changes already
// made (events: [{ atS, change }]) within each policy's period.
function policyLimit(policies, events, nowS, current, up) {
  let limit = up ? -Infinity : Infinity;
  for (const p of policies) {
    const changed = events.filter((e) => e.atS > nowS - p.periodS).reduce((a, e) => a + Math.abs(e.change), 0);
    const start = up ? current - changed : current + changed;
    const proposed = up
      ? p.type === 'Pods'
        ? start + p.value
        : Math.ceil(start * (1 + p.value / 100))
      : p.type === 'Pods'
        ? start - p.value
        : Math.trunc(start * (1 - p.value / 100));
    limit = up ? Math.max(limit, proposed) : Math.min(limit, proposed);
  }
  return up ? Math.max(limit, current) : Math.min(limit, current);
}

// One controller: decide() at each sync, with what it has recommended and done before.
class Hpa {
  // { min, max, target, rule (DEFAULTS, scaled) }
  constructor({ min, max, target, rule = DEFAULTS }) {
    if (!(Number.isInteger(min) && Number.isInteger(max) && min >= 1 && max >= min)) {
      throw new RangeError(`autoscale bounds ${min}-${max}: expected 1 <= MIN <= MAX`);
    }
    if (!(target > 0)) throw new RangeError(`autoscale target ${target}: expected above 0`);
    this.min = min;
    this.max = max;
    this.target = target;
    this.rule = rule;
    this.recommendations = []; // [{ atS, replicas }]
    this.ups = []; // [{ atS, change }]
    this.downs = [];
  }

  // nowS: seconds (any origin, increasing); current: the replicas there are (ready or not);
  // replicas: [{ name, value, ready }]. Returns the decision, every input with it, so that
  // anyone can recompute it from the run's files.
  decide({ nowS, current, replicas }) {
    const { rule } = this;
    const r = recommend(replicas, this.target, rule.tolerance, current);
    const raw = Math.min(this.max, Math.max(this.min, r.raw));
    this.recommendations.push({ atS: nowS, replicas: raw });
    const keep = Math.max(rule.upWindowS, rule.downWindowS);
    this.recommendations = this.recommendations.filter((x) => x.atS > nowS - keep - 1e-9);
    // Stabilization: the safest recommendation of each window.
    const inWindow = (w) => this.recommendations.filter((x) => x.atS > nowS - w - 1e-9 || x.atS === nowS);
    const upRec = Math.min(...inWindow(rule.upWindowS).map((x) => x.replicas));
    const downRec = Math.max(...inWindow(rule.downWindowS).map((x) => x.replicas));
    let stabilized = current;
    if (stabilized < upRec) stabilized = upRec;
    if (stabilized > downRec) stabilized = downRec;
    let desired = stabilized;
    let heldBy = null;
    if (raw !== stabilized) {
      heldBy = raw > stabilized ? `the up window (${rule.upWindowS} s)` : `the down window (${rule.downWindowS} s)`;
    }
    if (desired > current) {
      const limit = Math.min(this.max, policyLimit(rule.upPolicies, this.ups, nowS, current, true));
      if (desired > limit) ((desired = limit), (heldBy = 'the up policies'));
    } else if (desired < current) {
      const limit = Math.max(this.min, policyLimit(rule.downPolicies, this.downs, nowS, current, false));
      if (desired < limit) ((desired = limit), (heldBy = 'the down policies'));
    }
    if (desired > current) this.ups.push({ atS: nowS, change: desired - current });
    if (desired < current) this.downs.push({ atS: nowS, change: current - desired });
    const longest = Math.max(...[...rule.upPolicies, ...rule.downPolicies].map((p) => p.periodS), 0);
    this.ups = this.ups.filter((e) => e.atS > nowS - longest);
    this.downs = this.downs.filter((e) => e.atS > nowS - longest);
    return {
      current,
      perReplica: Object.fromEntries(replicas.map((x) => [x.name, x.ready ? round(x.value) : null])),
      average: round(r.average),
      target: this.target,
      ratio: r.ratio === null ? null : Math.round(r.ratio * 1000) / 1000,
      recommended: raw,
      ...(r.why ? { why: r.why } : {}),
      stabilized,
      desired,
      heldBy,
    };
  }
}

const round = (v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);

module.exports = { Hpa, DEFAULTS, scaledRule, recommend, policyLimit };
