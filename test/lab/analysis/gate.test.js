'use strict';

const { parseCondition, gate } = require('../../../lab/analysis/gate');

const run = (p99, extra = {}) => ({
  responseTimeMs: { p99 },
  requestsSent: 100,
  requestsFailed: 0,
  meanResponseRate: 50,
  ...extra,
});

test('conditions: what grows when worse takes >+, what falls <-; anything else is refused', () => {
  expect(parseCondition('p99>+10%')).toEqual({ text: 'p99>+10%', metric: 'p99', op: '>', margin: 10, relative: true });
  expect(parseCondition('max>+20')).toMatchObject({ margin: 20, relative: false });
  expect(parseCondition('rps<-5%')).toMatchObject({ metric: 'rps', op: '<' });
  for (const bad of ['p99>10%', 'p99<-10%', 'rps>+5%', 'p42>+1%', 'p99 is worse']) {
    expect(() => parseCondition(bad)).toThrow(/--fail-if/);
  }
});

test('one run a side: worse past the margin, not within it', () => {
  const c = [parseCondition('p99>+10%')];
  expect(gate(c, [run(100)], [run(115)]).worse).toBe(true);
  expect(gate(c, [run(100)], [run(105)]).worse).toBe(false);
  expect(gate(c, [run(100)], [run(100)]).worse).toBe(false);
  expect(gate([parseCondition('rps<-5%')], [run(1)], [run(1, { meanResponseRate: 40 })]).worse).toBe(true);
});

test('repetitions: a shift chance explains is not worse; a clear one is', () => {
  const c = [parseCondition('p99>+10%')];
  // noisy runs around 100 and 112: within chance of the line at 110
  const noisy = gate(c, [90, 100, 110].map(run), [100, 125, 111].map(run));
  expect(noisy.worse).toBe(false);
  expect(noisy.verdicts[0].test).toMatch(/^Welch's t-test, one-sided at 2.5%/);
  // tight runs around 100 and 150: worse
  expect(gate(c, [99, 100, 101].map(run), [149, 150, 151].map(run)).worse).toBe(true);
  // a figure missing on one side is worse, said why
  const missing = gate(c, [run(100)], [{ responseTimeMs: null }]);
  expect(missing.verdicts[0]).toMatchObject({ worse: true, why: 'p99 was not measured on the new side' });
});

// Wikipedia's first example of Welch's t-test (two samples of 15, unequal variances): t = 2.46
// (there A1 - A2, -2.46) on about 25 degrees of freedom; with no margin the line is A1's mean.
test("Welch's published example: t and the degrees of freedom", () => {
  const a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
  const a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
  const v = gate([parseCondition('p99>+0')], a1.map(run), a2.map(run)).verdicts[0];
  const [, t, crit, df] = /t = ([\d.]+) against ([\d.]+) \(([\d.]+) degrees/.exec(v.test).map(Number);
  expect(t).toBeCloseTo(2.46, 2);
  expect(df).toBeGreaterThan(24.5);
  expect(df).toBeLessThan(25.5);
  // Student's 97.5% quantile at 25 degrees of freedom: 2.060
  expect(crit).toBeCloseTo(2.06, 2);
  expect(v.worse).toBe(true);
});
