'use strict';

// What choice.json keeps of a check: the replicas' CPU the HPA's target is set from, measured
// at the rate with its headroom when it held there (at the rate itself the count is at its
// target by construction, and one replica more never came back down to it).
const { checkRecord, replicaCpuPct } = require('../../../lab/choose/checks');

const c = { label: 'replicated', shape: 'replicated', replicas: 2, cpuPerReplica: 0.5 };
const level = (rate, cores, ok = true) => ({
  rate,
  ok,
  dir: `/tmp/check-${rate}`,
  latencyMs: { p99: 5 },
  errorsPct: 0,
  answeredPerS: rate,
  answered: rate * 60,
  cost: { tierCores: { replicas: cores }, replicaMemoryMiB: 90 },
});
const record = (headroom) =>
  checkRecord(c, { verdict: { held: true, text: 'held' }, check: level(100, 0.44), headroom });

test("the replicas' CPU as a share of what they are given", () => {
  expect(replicaCpuPct(level(100, 0.44), c)).toBe(44);
  expect(replicaCpuPct({ cost: {} }, c)).toBeNull();
});

test("the HPA's target from the rate with its headroom when it held there, else from the rate; which one said", () => {
  expect(record(level(130, 0.57))).toMatchObject({
    replicaCpuPct: 57,
    replicaCpuAtRate: 130,
    headroom: { rate: 130, held: true },
  });
  // Not held at its headroom (the check failed), or not measured (no headroom asked): the rate's.
  expect(record(level(130, 0.7, false))).toMatchObject({ replicaCpuPct: 44, replicaCpuAtRate: 100 });
  expect(record(null)).toMatchObject({ replicaCpuPct: 44, replicaCpuAtRate: 100 });
  expect(record(null).headroom).toBeUndefined();
});
