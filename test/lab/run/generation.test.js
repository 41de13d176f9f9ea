'use strict';

const { deadlineOf, deadlineWatch } = require('../../../lab/run/generation');

// The deadline's clock (lab/run/generation.js): from the first phase's record to the
// generator's last one, on fake timers.
beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

const deadline = deadlineOf({ durationMs: 24000 }, { timeoutS: 10 });

test("a plan's deadline: its time and a drain of twice the time-out, at least 30 s", () => {
  expect(deadline).toEqual({ s: 54, text: "the plan's 24 s and a drain of 30 s" });
  expect(deadlineOf({ durationMs: 5000 }, { timeoutS: 20 }).s).toBe(45);
  // a closed loop bounded by a request count alone: none
  expect(deadlineOf({}, { untilRequests: 100 })).toBeNull();
});

test('passed when no last record came: the generator is stopped, once, and the run said overran', () => {
  const stop = jest.fn();
  const w = deadlineWatch(deadline, stop);
  w.onRecord({ type: 'start', at: Date.now() });
  jest.advanceTimersByTime(60000);
  expect(stop).not.toHaveBeenCalled(); // the start-up is not the run's: no phase yet
  w.onRecord({ type: 'phase', index: 0, at: Date.now() });
  w.onRecord({ type: 'phase', index: 1, at: Date.now() + 10000 });
  jest.advanceTimersByTime(53999);
  expect(stop).not.toHaveBeenCalled();
  jest.advanceTimersByTime(1);
  expect(stop).toHaveBeenCalledTimes(1);
  expect(w.overran).toBe(true);
});

// Two load nodes on a busy cluster: both ended within the plan, then removing their swarm
// service took half a minute, and the run was said stopped at its deadline.
test("the generator's last record stops the clock: its own exit after it is not the run's", () => {
  const stop = jest.fn();
  const w = deadlineWatch(deadline, stop);
  w.onRecord({ type: 'phase', index: 0, at: Date.now() });
  jest.advanceTimersByTime(30000);
  w.onRecord({ type: 'done', at: Date.now() });
  jest.advanceTimersByTime(120000);
  expect(stop).not.toHaveBeenCalled();
  expect(w.overran).toBe(false);
  // a phase record after the end starts nothing
  w.onRecord({ type: 'phase', index: 0, at: Date.now() });
  jest.advanceTimersByTime(120000);
  expect(stop).not.toHaveBeenCalled();
});

test("the clock counts from the phase record's own time, not from when it arrived", () => {
  const stop = jest.fn();
  const w = deadlineWatch(deadline, stop);
  w.onRecord({ type: 'phase', index: 0, at: Date.now() - 4000 });
  jest.advanceTimersByTime(49999);
  expect(stop).not.toHaveBeenCalled();
  jest.advanceTimersByTime(1);
  expect(stop).toHaveBeenCalledTimes(1);
});

test('no deadline: nothing is ever stopped', () => {
  const stop = jest.fn();
  const w = deadlineWatch(null, stop);
  w.onRecord({ type: 'phase', index: 0, at: Date.now() });
  jest.advanceTimersByTime(10 ** 7);
  expect(stop).not.toHaveBeenCalled();
});
