'use strict';

const { Hpa, DEFAULTS, scaledRule, recommend, policyLimit } = require('../../../lab/elastic/hpa');

// Replicas all ready, with the figures given.
const at = (...values) => values.map((value, i) => ({ name: `replica-${i + 1}`, value, ready: true }));

describe("the HPA's formula: desired = ceil(current x metric / target)", () => {
  test("Kubernetes' own example: 50 replicas at 90% for a 75% target want 60", () => {
    const r = recommend(at(...Array(50).fill(90)), 75, 0.1, 50);
    expect(r.raw).toBe(60);
    expect(r.ratio).toBeCloseTo(1.2);
  });

  test('2 replicas at 100% for a 50% target want 4; at 10% they want 1', () => {
    expect(recommend(at(100, 100), 50, 0.1, 2).raw).toBe(4);
    expect(recommend(at(10, 10), 50, 0.1, 2).raw).toBe(1);
  });

  test('within the 10% tolerance nothing changes (54% for 50%: 1.08), past it it does (56%: 1.12)', () => {
    expect(recommend(at(54, 54), 50, 0.1, 2)).toMatchObject({ raw: 2, why: 'within the tolerance' });
    expect(recommend(at(56, 56), 50, 0.1, 2).raw).toBe(3);
  });

  test('going up, a replica not ready yet counts as idle: 2 at 90% and 1 starting, target 50 -> ceil(3 x 60/50) = 4', () => {
    const replicas = [...at(90, 90), { name: 'replica-3', value: null, ready: false }];
    expect(recommend(replicas, 50, 0.1, 3).raw).toBe(4);
  });

  test('going up, when counting the idle ones lands within the tolerance: no change', () => {
    // 2 at 80% (ratio 1.6), 1 ready without a figure: (160 + 0) / 3 = 53.3 -> 1.07.
    const replicas = [...at(80, 80), { name: 'replica-3', value: null, ready: true }];
    expect(recommend(replicas, 50, 0.1, 3)).toMatchObject({ raw: 3 });
  });

  test('going down, a replica without a figure counts as at target', () => {
    // 2 at 10% and one without a figure at 50: (20 + 50) / 3 = 23.3 -> ceil(3 x 0.467) = 2.
    const replicas = [...at(10, 10), { name: 'replica-3', value: null, ready: true }];
    expect(recommend(replicas, 50, 0.1, 3).raw).toBe(2);
  });

  test('no figure at all: no change, said', () => {
    expect(recommend([{ name: 'replica-1', value: null, ready: true }], 50, 0.1, 1)).toMatchObject({
      raw: 1,
      why: 'no figure from any ready replica',
    });
  });
});

describe("the policies (Kubernetes' defaults: up 100% or 4 per 15 s, whichever more; down 100% per 15 s)", () => {
  test('from 1, up to 5 at once (4 replicas beat doubling); from 10, up to 20 (doubling beats 4)', () => {
    expect(policyLimit(DEFAULTS.upPolicies, [], 100, 1, true)).toBe(5);
    expect(policyLimit(DEFAULTS.upPolicies, [], 100, 10, true)).toBe(20);
  });

  test('what was added within the period counts: 3 added 5 s ago from 2 (now 5) allows 2 + 4 = 6', () => {
    expect(policyLimit(DEFAULTS.upPolicies, [{ atS: 95, change: 3 }], 100, 5, true)).toBe(6);
    // Outside the period (20 s ago) it does not.
    expect(policyLimit(DEFAULTS.upPolicies, [{ atS: 80, change: 3 }], 100, 5, true)).toBe(10);
  });

  test('down by a percent truncates: 50% of 5 allows 2', () => {
    expect(policyLimit([{ type: 'Percent', value: 50, periodS: 15 }], [], 100, 5, false)).toBe(2);
  });
});

describe('the controller over time', () => {
  test('scales up at once, holds 300 s of the highest recommendation before scaling down', () => {
    const hpa = new Hpa({ min: 1, max: 4, target: 50 });
    let current = 1;
    const step = (nowS, value) => {
      const d = hpa.decide({ nowS, current, replicas: at(...Array(current).fill(value)) });
      current = d.desired;
      return d;
    };
    // A spike: one replica at 200% of a core for a 50% target wants 4.
    expect(step(0, 200)).toMatchObject({ recommended: 4, desired: 4, heldBy: null });
    // The spike over: 4 at 5% want 1, held by the down window for 300 s.
    expect(step(15, 5)).toMatchObject({ recommended: 1, desired: 4, heldBy: 'the down window (300 s)' });
    expect(step(300, 5).desired).toBe(4);
    // 300 s after the last recommendation of 4 (at 0), the highest in the window is 1.
    expect(step(315, 5)).toMatchObject({ desired: 1, heldBy: null });
  });

  test('MAX caps the up-policy; from 1 with max 10 and a 10x load: 5, then 10 one period later', () => {
    const hpa = new Hpa({ min: 1, max: 10, target: 10 });
    const d1 = hpa.decide({ nowS: 0, current: 1, replicas: at(100) });
    expect(d1).toMatchObject({ recommended: 10, desired: 5, heldBy: 'the up policies' });
    // 5 s later the 4 added count: the limit is max(1 x 2, 1 + 4) = 5 still.
    const d2 = hpa.decide({ nowS: 5, current: 5, replicas: at(100, 100, 100, 100, 100) });
    expect(d2).toMatchObject({ desired: 5, heldBy: 'the up policies' });
    const d3 = hpa.decide({ nowS: 16, current: 5, replicas: at(100, 100, 100, 100, 100) });
    expect(d3.desired).toBe(10);
  });

  test('MIN holds: never below it', () => {
    const hpa = new Hpa({ min: 2, max: 4, target: 50, rule: { ...DEFAULTS, downWindowS: 0 } });
    expect(hpa.decide({ nowS: 0, current: 3, replicas: at(1, 1, 1) }).desired).toBe(2);
  });

  test('every input is in the decision', () => {
    const hpa = new Hpa({ min: 1, max: 4, target: 50 });
    const d = hpa.decide({ nowS: 0, current: 2, replicas: at(80, 100) });
    expect(d).toEqual({
      current: 2,
      perReplica: { 'replica-1': 80, 'replica-2': 100 },
      average: 90,
      target: 50,
      ratio: 1.8,
      recommended: 4,
      stabilized: 4,
      desired: 4,
      heldBy: null,
    });
  });

  test('--scale shortens every time of the rule', () => {
    const r = scaledRule(DEFAULTS, 0.1);
    expect(r).toMatchObject({ syncS: 1.5, upWindowS: 0, downWindowS: 30 });
    expect(r.upPolicies.map((p) => p.periodS)).toEqual([1.5, 1.5]);
    expect(r.tolerance).toBe(0.1);
  });

  test('bad bounds or target are refused', () => {
    expect(() => new Hpa({ min: 3, max: 2, target: 50 })).toThrow(/MIN <= MAX/);
    expect(() => new Hpa({ min: 0, max: 2, target: 50 })).toThrow(/MIN <= MAX/);
    expect(() => new Hpa({ min: 1, max: 2, target: 0 })).toThrow(/above 0/);
  });
});
