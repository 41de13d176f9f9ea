'use strict';

const { checkVerdict } = require('../../../lab/choose/check');

// The check's verdict (npm run choose): held only when the level held; every reason it did not
// said; a generator that could not offer the rate says nothing of the deployment.
const plan = { rate: 20, slos: [{ text: 'p99<200' }, { text: 'errors<1%' }] };
const level = (o = {}) => ({
  ok: true,
  holdS: 30,
  answered: 600,
  answeredPerS: 20,
  latencyMs: { p99: 42 },
  errorsPct: 0,
  thresholds: [
    { text: 'p99<200', ok: true },
    { text: 'errors<1%', ok: true },
  ],
  generatorBound: null,
  ...o,
});

test('a level that held: held, with the SLO and its figures', () => {
  const v = checkVerdict(level(), plan);
  expect(v).toEqual({
    held: true,
    text: 'held 20/s for 30 s under p99<200 and errors<1% (p99 42 ms of 600 answers, errors 0%, 20/s answered)',
  });
});

test('an SLO that broke: not held, the threshold named', () => {
  const v = checkVerdict(
    level({
      ok: false,
      latencyMs: { p99: 900 },
      thresholds: [
        { text: 'p99<200', ok: false },
        { text: 'errors<1%', ok: true },
      ],
    }),
    plan,
  );
  expect(v.held).toBe(false);
  expect(v.inconclusive).toBeUndefined();
  expect(v.text).toBe('did not hold 20/s for 30 s: p99<200 (p99 900 ms of 600 answers, errors 0%, 20/s answered)');
});

test('a process that restarted under the level: not held, said, though every threshold held', () => {
  const v = checkVerdict(
    level({ ok: false, restarts: [{ node: 'replica-1', restarts: 1, exitCodes: { 3: 1 } }] }),
    plan,
  );
  expect(v.held).toBe(false);
  expect(v.text).toMatch(/^did not hold 20\/s for 30 s: a process restarted \(/);
});

test('nothing answered: not held, said', () => {
  const v = checkVerdict(level({ ok: false, answered: 0, answeredPerS: 0 }), plan);
  expect(v.held).toBe(false);
  expect(v.text).toMatch(/: nothing answered \(/);
});

test('a generator that could not offer the rate: no verdict on the deployment, inconclusive', () => {
  const v = checkVerdict(level({ ok: true, generatorBound: 'the generator launched 12/s of 20/s' }), plan);
  expect(v).toEqual({
    held: false,
    inconclusive: true,
    text: 'no check: the generator launched 12/s of 20/s; the rate was never offered',
  });
});

// Issue 82: a check the generator could not drive ended with "the prediction was too kind",
// as if the deployment had broken. Nothing chosen is said by what the checks found.
test('nothing held: the prediction too kind only where a check broke the SLO; a generator limit said as such', () => {
  const { noneHeldText } = require('../../../lab/choose/check');
  const p = { rate: 100 };
  const broke = { label: 'replicated', replicas: 3, text: 'did not hold 100/s for 120 s: p99<200 broke' };
  const undriven = {
    label: 'replicated',
    replicas: 4,
    text: 'no check: the generator launched 61/s',
    inconclusive: true,
  };
  expect(noneHeldText([undriven], p)).toMatch(
    /^no check could offer 100\/s \(replicated x4: no check: the generator launched 61\/s\): the generator, not the deployment, was the limit/,
  );
  expect(noneHeldText([undriven], p)).not.toMatch(/too kind/);
  expect(noneHeldText([broke], p)).toMatch(/: the prediction was too kind; try more --tries/);
  expect(noneHeldText([broke, undriven], p)).toMatch(
    /: the prediction was too kind where a check broke the SLO, and the others could not offer the rate;/,
  );
});
