'use strict';

const { SPREAD_PCT, spreadPct, cpuSpeedsText } = require('../../../lab/measure/cpu-speeds');

const at = '2026-12-01T05:00:00.000Z';
const reading = (...ms) => {
  const cpus = ms.map((x, cpu) => ({ cpu, ms: x }));
  return { at, cpus, spreadPct: spreadPct(cpus) };
};

test("the spread is the slowest CPU's time over the fastest's, in %, and 0 with one CPU", () => {
  expect(
    spreadPct([
      { cpu: 0, ms: 1.67 },
      { cpu: 1, ms: 1.03 },
    ]),
  ).toBe(62.1);
  expect(
    spreadPct([
      { cpu: 0, ms: 1.03 },
      { cpu: 1, ms: 1.67 },
    ]),
  ).toBe(62.1);
  expect(spreadPct([{ cpu: 0, ms: 1.2 }])).toBe(0);
  expect(spreadPct([1, 1.1, 1.05, 1.3].map((ms, cpu) => ({ cpu, ms })))).toBe(30);
});

test('CPUs apart at the start only: said with both readings of the start, not the end', () => {
  const text = cpuSpeedsText({ start: reading(1.67, 1.03), end: reading(1.1, 1.09) });
  expect(text).toBe(
    "this machine's CPUs did not run at one speed: the same computation took 1.67 ms on CPU 0 and 1.03 ms on CPU 1 (62.1% apart) at the start, over 15% apart; a replica runs on whichever CPU the kernel gives it, so a capacity read here can move by as much from one search to the next. For figures that repeat, a machine whose CPUs agree",
  );
});

test('apart at both ends: both said, in order; three CPUs named in a list', () => {
  const text = cpuSpeedsText({ start: reading(1, 1.3, 1.05), end: reading(1.7, 1) });
  expect(text).toMatch(
    /took 1 ms on CPU 0, 1\.3 ms on CPU 1 and 1\.05 ms on CPU 2 \(30% apart\) at the start; 1\.7 ms on CPU 0 and 1 ms on CPU 1 \(70% apart\) at the end, over 15% apart/,
  );
});

test(`within ${SPREAD_PCT}% (or exactly at it), one CPU, no reading, or none at all: nothing said`, () => {
  expect(cpuSpeedsText({ start: reading(1.1, 1.2), end: reading(1.0, 1.12) })).toBeNull();
  expect(cpuSpeedsText({ start: reading(1, 1.15) })).toBeNull();
  expect(cpuSpeedsText({ start: reading(1.7) })).toBeNull();
  expect(cpuSpeedsText({ start: { at, unavailable: 'taskset is not installed' }, end: undefined })).toBeNull();
  expect(cpuSpeedsText({})).toBeNull();
  expect(cpuSpeedsText()).toBeNull();
  // (Just over the line is said.)
  expect(cpuSpeedsText({ start: reading(1, 1.151) })).toMatch(/15\.1% apart/);
});
