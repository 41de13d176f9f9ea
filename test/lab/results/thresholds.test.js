'use strict';

const { parseThreshold, evaluate } = require('../../../lab/results/thresholds');
const { codeOf } = require('../../helper');

const summary = {
  responseTimeMs: { p50: 2, p99: 400, max: 500, mean: 3 },
  scenariosLaunched: 200,
  scenariosFailed: 1,
  codes: { 200: 190, 503: 9 },
  phases: [{ targetRate: { mean: 10 }, durationS: 20 }],
  meanResponseRate: 9,
};

describe('thresholds (--ensure)', () => {
  test.each([
    ['p99<500', 400, true],
    ['p99<400', 400, false],
    ['p99<=400', 400, true],
    ['max>=500', 500, true],
    ['errors<1%', 5, false],
    ['errors<=10', 10, true],
    ['rate>=0.99', 1, true],
    ['rps>10', 9, false],
  ])('%s measures %d and holds: %s', (text, value, ok) => {
    const [t] = evaluate([parseThreshold(text)], summary);
    expect({ value: t.value, ok: t.ok }).toEqual({ value, ok });
  });

  test('a figure the run could not measure fails', () => {
    const [t] = evaluate([parseThreshold('p99<500')], { ...summary, responseTimeMs: null });
    expect(t).toMatchObject({ value: null, ok: false });
  });

  test.each(['p98<3', 'p99<', 'p99 < five', 'p99<5%', 'latency<3', ''])('"%s" is a usage error', (text) => {
    expect(codeOf(() => parseThreshold(text))).toBe('LAB_ERR_USAGE');
  });
});

test('errors as a share never pass 100%: a window that saw more end than it sent counts what ended', () => {
  // A capacity level's window after its warm-up: 59 sent, 60 answered 500 (one sent before).
  const window = { requestsSent: 59, requestsCompleted: 60, requestsFailed: 0, answersFailed: { count: 60 }, codes: { 500: 60 } };
  expect(evaluate([parseThreshold('errors<1%')], window)[0].value).toBe(100);
  const whole = { requestsSent: 100, requestsCompleted: 90, requestsFailed: 5, answersFailed: { count: 5 }, codes: {} };
  expect(evaluate([parseThreshold('errors<1%')], whole)[0].value).toBe(10);
});
