'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parsePhases, phasesText, MAX_PHASES } = require('../../../lab/scenario/phase-list');
const { plan } = require('../../../lab/commands/scenario/plan');
const { planText } = require('../../../lab/run/plan-text');
const { refusalOf } = require('../../helper');

// --phases (lab/scenario/phase-list.js): a load of the user's own shape without a script, and
// what `choose` runs to check the autoscaler it writes.
const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'phases-'))];

test('constant rates and ramps, in order, each for its duration; written back as typed', () => {
  const phases = parsePhases('10-20/30s, 20-10/15s,10/1m45s,2.5/10');
  expect(phases).toEqual([
    { name: 'ramp 10/s to 20/s', duration: 30, arrivalRate: 10, rampTo: 20 },
    { name: 'ramp 20/s to 10/s', duration: 15, arrivalRate: 20, rampTo: 10 },
    { name: 'constant 10/s', duration: 105, arrivalRate: 10 },
    { name: 'constant 2.5/s', duration: 10, arrivalRate: 2.5 },
  ]);
  expect(phasesText(phases)).toBe('10-20/30s,20-10/15s,10/1m45s,2.5/10s');
  expect(parsePhases(phasesText(phases))).toEqual(phases);
});

test('what is not a phase, too many, too long or too fast is refused, saying which', () => {
  const why = (text) => {
    try {
      parsePhases(text);
      return null;
    } catch (err) {
      return err.message;
    }
  };
  expect(why('10')).toMatch(/"10" is not RATE\/DURATION/);
  expect(why('10-/5s')).toMatch(/is not RATE\/DURATION/);
  expect(why('0/5s')).toMatch(/sends nothing/);
  expect(why('10/0s')).toMatch(/"10\/0s": --phases must be longer than 0/);
  expect(why('60000/5s')).toMatch(/at most 50000 a second/);
  expect(
    why(
      Array(MAX_PHASES + 1)
        .fill('1/1s')
        .join(','),
    ),
  ).toMatch(/1 to 20 phases/);
  expect(why('1/20h,1/5h')).toMatch(/last more than 24 h/);
  expect(why('')).toMatch(/1 to 20 phases/);
});

test('scenario --phases: the run has these phases instead of its own, --scale stretches them, --plan shows them', () => {
  const p = plan(['ping', 'endurance', 'single', '--phases', '10-20/30s,10/20s', '--scale', '0.5', ...where()]);
  expect(p.model.phases).toEqual([
    { name: 'ramp 10/s to 20/s', duration: 15, arrivalRate: 10, rampTo: 20 },
    { name: 'constant 10/s', duration: 10, arrivalRate: 10 },
  ]);
  expect(planText(p)).toMatch(
    /ramp 10\/s to 20\/s +15 s +10 -> 20 arrivals\/s\n +constant 10\/s +10 s +10 arrivals\/s/,
  );
});

test('scenario --phases with --rate, --rate-scale or --duration is refused, as is a closed loop or the signal endpoint', () => {
  for (const f of [
    ['--rate', '5'],
    ['--rate-scale', '2'],
    ['--duration', '30s'],
  ]) {
    expect(refusalOf(() => plan(['ping', 'endurance', 'single', '--phases', '10/5s', ...f, ...where()]))).toMatchObject(
      {
        code: 'LAB_ERR_FLAGS_EXCLUDE',
        exit: 2,
        message: expect.stringMatching(new RegExp(`--phases.*${f[0]}`)),
      },
    );
  }
  expect(
    refusalOf(() => plan(['ping', 'endurance', 'single', '--phases', '10/5s', '--generator', 'closed', ...where()])),
  ).toMatchObject({ exit: 2, message: expect.stringMatching(/^--phases \(arrival rates; a closed loop has none/) });
  expect(refusalOf(() => plan(['signal', 'load', 'single', '--phases', '10/5s', ...where()]))).toMatchObject({
    exit: 2,
    message: expect.stringMatching(/--phases/),
  });
  expect(refusalOf(() => plan(['ping', 'load', 'single', '--phases', 'ten/5s', ...where()]))).toMatchObject({
    exit: 2,
    message: expect.stringMatching(/ten\/5s/),
  });
});
