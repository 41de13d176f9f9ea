'use strict';

const { gather, seconds, totals, errorsPerSecond } = require('../../../lab/measure/records');

const sec = (at, o = {}) => ({ type: 'second', at, launched: 0, completed: 0, codes: {}, errors: {}, ...o });

test('the seconds in time order; a second reported in two parts has its counts added, the fuller latency kept', () => {
  const a = sec(2000, {
    launched: 5,
    completed: 4,
    codes: { 200: 4 },
    latencyMs: { count: 4 },
    hist: { latency: 'A' },
  });
  const b = sec(2000, {
    launched: 3,
    completed: 3,
    codes: { 200: 2, 500: 1 },
    errors: { ETIMEDOUT: 1 },
    latencyMs: { count: 3 },
    hist: { latency: 'B' },
  });
  const out = seconds([{ type: 'phase', at: 0 }, sec(3000), b, a, sec(1000)]);
  expect(out.map((s) => s.at)).toEqual([1000, 2000, 3000]);
  expect(out[1]).toMatchObject({
    launched: 8,
    completed: 7,
    codes: { 200: 6, 500: 1 },
    errors: { ETIMEDOUT: 1 },
    latencyMs: { count: 4 },
  });
  // two parts' histograms cannot be told apart once added: none kept, never a wrong one
  expect(out[1].hist).toBeNull();
});

test("the run's totals: the engine's own when it kept them, else the seconds and intervals added", () => {
  const records = [
    sec(1000, { launched: 10, completed: 9, codes: { 200: 9 }, errors: { ECONNRESET: 1 } }),
    sec(2000, { launched: 10, completed: 10, codes: { 200: 10 } }),
    { type: 'interval', at: 1000, durationMs: 10000, codes: { 503: 2 }, errors: {} },
  ];
  expect(totals(records)).toEqual({
    launched: 20,
    completed: 19,
    failed: 1,
    codes: { 200: 19, 503: 2 },
    errors: { ECONNRESET: 1 },
  });
  const own = { launched: 1, completed: 1, failed: 0, codes: { 200: 1 }, errors: {} };
  expect(totals([...records, { type: 'done', totals: own }])).toBe(own);
});

test('virtual users when the engine ran flows', () => {
  const t = totals([sec(1000, { launched: 4, completed: 4, arrivals: 2, vusCompleted: 1, vusFailed: 1 })]);
  expect(t).toMatchObject({ arrivals: 2, vusCompleted: 1, vusFailed: 1 });
});

test("failures per second: exact from seconds; an interval's spread over its seconds, said to be inexact", () => {
  const failed = (codes) => codes?.[500] || 0;
  const exact = errorsPerSecond([sec(1000, { errors: { ETIMEDOUT: 2 }, codes: { 500: 1 } }), sec(2000)], failed);
  expect([...exact.perSecond]).toEqual([[1000, 3]]);
  expect(exact.exact).toBe(true);
  const spread = errorsPerSecond(
    [{ type: 'interval', at: 0, durationMs: 4000, codes: { 500: 8 }, errors: {} }],
    failed,
  );
  expect([...spread.perSecond]).toEqual([
    [0, 2],
    [1000, 2],
    [2000, 2],
    [3000, 2],
  ]);
  expect(spread.exact).toBe(false);
});

// A phase's window holding only empty seconds with no histograms (an engine that reports
// counts per interval, as Artillery does): no figure, not a crash. It once failed a run with
// "Cannot read properties of undefined (reading 'lag')", now and then, as the seconds fell.
test('merged figures over empty seconds without histograms: none', () => {
  const { mergedFigures } = require('../../../lab/measure/records');
  const empty = [sec(1000), sec(2000)];
  expect(mergedFigures(empty, 'lag')).toBeNull();
  expect(mergedFigures(empty, 'latency', new Map(), 'k')).toBeNull();
  // a second with answers and no histogram: not measured, so none either
  expect(mergedFigures([sec(1000, { launched: 3 })], 'lag')).toBeNull();
});

test('one pass over the records gathers what every section reads, the same as reading them apart', () => {
  const records = [
    { type: 'start', at: 900, generator: 'fast', workers: 2 },
    { type: 'start', at: 950, generator: 'other' },
    { type: 'phase', index: 0, name: 'a', at: 1000 },
    sec(1000, { launched: 3, completed: 2, codes: { 200: 2 }, errors: { ECONNRESET: 1 } }),
    { type: 'phase', index: 0, name: 'a', at: 1010 },
    { type: 'interval', at: 1000, durationMs: 2000, codes: { 500: 2 }, errors: {} },
    sec(2000, { launched: 1, completed: 1, codes: { 200: 1 } }),
    { type: 'phase', index: 1, name: 'b', at: 2000 },
    { type: 'done', at: 3000, cpuS: 0.5 },
    { type: 'done', at: 3100, cpuS: 9 },
  ];
  const g = gather(records);
  expect(g.secs).toEqual(seconds(records));
  expect(g.intervals).toHaveLength(1);
  // The first start and done records; each phase's last record (one a worker), the first phase's first.
  expect(g.start.generator).toBe('fast');
  expect(g.done.cpuS).toBe(0.5);
  expect([...g.phaseStarts]).toEqual([
    [0, 1010],
    [1, 2000],
  ]);
  expect(g.firstPhaseAt).toBe(1000);
  // What totals and the failures per second make of it is the same from either.
  expect(totals(g)).toEqual(totals(records));
  expect(totals(g)).toMatchObject({ launched: 4, completed: 3, failed: 1, codes: { 200: 3, 500: 2 } });
  const failedOf = (codes) => codes[500] || 0;
  expect(errorsPerSecond(g, failedOf)).toEqual(errorsPerSecond(records, failedOf));
});
