'use strict';

const { labError } = require('../../common/errors');

// Changes of a deployment's replicas, over any runtime that can add and remove one
// (runtime.addReplica, runtime.removeReplica, runtime.replicaNames: lab/runtime/local.js,
// lab/runtime/compose.js): a count reached (npm run scale, the autoscaler) and a rollout, each
// one replica at a time.

// A replica's number in its name (replica-12 -> 12): the newest has the highest.
const seqOf = (name) => Number(/(\d+)$/.exec(name)?.[1] ?? 0);

// Adds or removes replicas until there are `replicas`; removes the newest first (as a
// ReplicaSet prefers the youngest pods). -> [{ added } | { removed }] in order.
async function scaleTo(runtime, replicas, { graceS = 30, preStopS = 0, log = () => {}, onChange = () => {} } = {}) {
  const changes = [];
  for (;;) {
    const names = runtime.replicaNames();
    if (names.length === replicas) return changes;
    if (names.length < replicas) {
      const added = await runtime.addReplica({ log });
      changes.push({ added });
      onChange({ added });
    } else {
      const newest = [...names].sort((a, b) => seqOf(b) - seqOf(a))[0];
      const removed = await runtime.removeReplica(newest, { graceS, preStopS, log });
      changes.push({ removed });
      onChange({ removed });
    }
  }
}

// --max-surge and --max-unavailable as Kubernetes reads them: a count, or a percent of the
// replicas, surge rounded up and unavailable rounded down (defaults 25% each); not both 0.
// (`replicas` null: the count is not known yet; checked again once it is.)
function rolloutBounds(replicas, { maxSurge = '25%', maxUnavailable = '25%' } = {}) {
  const of = (v, round) => {
    const m = /^(\d+)(%?)$/.exec(String(v).trim());
    if (!m) throw labError('LAB_ERR_USAGE', `expected a count or a percent (like 1 or 25%), got "${v}"`);
    return m[2] ? round((Number(m[1]) * (replicas ?? 4)) / 100) : Number(m[1]);
  };
  const surge = of(maxSurge, Math.ceil);
  const unavailable = of(maxUnavailable, Math.floor);
  if (surge === 0 && unavailable === 0) {
    throw labError(
      'LAB_ERR_USAGE',
      `--max-surge ${maxSurge} and --max-unavailable ${maxUnavailable} leave no room to replace a replica${replicas === null ? '' : ` among ${replicas}`}: one of them must allow at least 1`,
    );
  }
  return { surge, unavailable };
}

// Replaces every replica that is up, one at a time, as a Deployment's RollingUpdate: a new
// one is added while there are fewer than replicas + surge, an old one removed while at
// least replicas - unavailable remain. app: the new version (--app-next), else the same.
// `stop()` true ends it between two steps: the step under way finishes (a replica added is in
// the entry, one removed is gone), so the state, the entry and the processes agree.
// -> { replicas, surge, unavailable, replaced: [{ old, new }], steps: [{ added } | { removed }],
// stopped (ended by stop() before every replica was replaced) }
async function rollout(
  runtime,
  {
    app = null,
    maxSurge,
    maxUnavailable,
    graceS = 30,
    preStopS = 0,
    log = () => {},
    onChange = () => {},
    stop = () => false,
  },
) {
  const old = [...runtime.replicaNames()];
  const n = old.length;
  const { surge, unavailable } = rolloutBounds(n, { maxSurge, maxUnavailable });
  log(`rolling out ${n} replica(s): at most ${n + surge} at once, at least ${n - unavailable} answering`);
  const fresh = [];
  const steps = [];
  let stopped = false;
  while (old.length && !(stopped = stop())) {
    const total = old.length + fresh.length;
    if (fresh.length < n && total < n + surge) {
      const added = await runtime.addReplica({ app, log });
      fresh.push(added.name);
      steps.push({ added });
      onChange({ added });
    } else if (total - 1 >= n - unavailable) {
      const name = old.shift();
      const removed = await runtime.removeReplica(name, { graceS, preStopS, log });
      steps.push({ removed });
      onChange({ removed });
    } else {
      throw new Error(`rollout stuck at ${old.length} old and ${fresh.length} new replicas`);
    }
  }
  // (With surge 0 the last new ones come after the last old one left.)
  while (fresh.length < n && !(stopped = stopped || stop())) {
    const added = await runtime.addReplica({ app, log });
    fresh.push(added.name);
    steps.push({ added });
    onChange({ added });
  }
  const removed = steps.filter((s) => s.removed).map((s) => s.removed.name);
  const added = steps.filter((s) => s.added).map((s) => s.added.name);
  return {
    replicas: n,
    surge,
    unavailable,
    replaced: removed.map((o, i) => ({ old: o, new: added[i] })),
    steps,
    stopped,
  };
}

module.exports = { scaleTo, rollout, rolloutBounds, seqOf };
