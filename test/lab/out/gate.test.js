'use strict';

const { parseCondition, gate } = require('../../../lab/out/gate');

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
