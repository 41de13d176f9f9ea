'use strict';

const { parseAb, parseWrk, verdicts, h2loadRate } = require('../../bench/engines');

// bench/engines.js's reading of the C tools and its verdicts (the measurement itself is the
// bench's, on a quiet machine; its results are bench/results/engines.json).
test("ab's and wrk's own output read: answers, failures (non-2xx and socket errors)", () => {
  const ab =
    'Concurrency Level:      10\nComplete requests:      52000\nFailed requests:        12\nNon-2xx responses:      3\n';
  expect(parseAb(ab)).toEqual({ answered: 51988, failed: 15 });
  const wrk =
    '  90000 requests in 10.00s, 12.00MB read\n  Socket errors: connect 0, read 2, write 0, timeout 1\n  Non-2xx or 3xx responses: 4\n';
  expect(parseWrk(wrk)).toEqual({ answered: 89996, failed: 7 });
});

test("the issue's ratios on the better rounds, with their goals; the floors beside them, with none", () => {
  const best = {
    ab: { cpuUsPerRequest: 40 },
    fastLow: { cpuUsPerRequest: 300 },
    nodeLow: { cpuUsPerRequest: 250 },
    fastHigh: { cpuUsPerRequest: 110 },
    nodeHigh: { cpuUsPerRequest: 100 },
    wrk: { cpuUsPerRequest: 10 },
    autocannon: { cpuUsPerRequest: 30, answersPerS: 9000 },
    closed: { cpuUsPerRequest: 16, answersPerS: 9500 },
    nodeKa: { cpuUsPerRequest: 24 },
    fastKa: { cpuUsPerRequest: 30 },
  };
  const v = verdicts(best, { rate: 400, kaRate: 3000 });
  expect(v.filter((g) => g.met !== null)).toEqual([
    { what: 'fast at 400/s (new connection per request) against ab', ratio: 7.5, goal: '<= 3x', met: false },
    { what: 'fast at 3000/s (new connection per request) against ab', ratio: 2.75, goal: '<= 3x', met: true },
    { what: 'closed --keepalive against wrk', ratio: 1.6, goal: '<= 1.5x', met: false },
    { what: 'fast --keepalive at 3000/s against closed --keepalive', ratio: 1.88, goal: '<= 1.5x', met: false },
    { what: 'closed --keepalive answers a second against autocannon', ratio: 1.06, goal: '>= 1x', met: true },
  ]);
  const floors = Object.fromEntries(v.filter((g) => g.met === null).map((g) => [g.what, g.ratio]));
  expect(floors).toEqual({
    'node:net at 400/s (the floor under fast) against ab': 6.25,
    'fast at 400/s against node:net at 400/s': 1.2,
    'fast at 3000/s against node:net at 3000/s': 1.1,
    'node:net --keepalive at 3000/s (the floor under fast --keepalive) against closed --keepalive': 1.5,
    'fast --keepalive at 3000/s against node:net --keepalive': 1.25,
  });
  // A goal whose engines did not run is said, not met; a floor that did not run is left out.
  const none = verdicts({}, { rate: 400, kaRate: 3000 });
  expect(none[0]).toMatchObject({ ratio: null, met: false });
  expect(none.every((g) => g.met !== null)).toBe(true);
});

test('h2load --h1 at a fixed rate: a connection per request, in groups every 10 ms (100 ms or 1 s when the rate does not divide)', () => {
  expect(h2loadRate('http://h/ping', 400, 10)).toEqual([
    '--h1',
    '-t',
    '1',
    '-r',
    '4',
    '--rate-period=10ms',
    '-c',
    '4000',
    '-n',
    '4000',
    'http://h/ping',
  ]);
  const args = (rate, seconds) => h2loadRate('http://h/ping', rate, seconds).slice(3, 6);
  expect(args(450, 2)).toEqual(['-r', '45', '--rate-period=100ms']);
  expect(args(7, 2)).toEqual(['-r', '7', '--rate-period=1s']);
  expect(h2loadRate('http://h/ping', 7, 2).slice(6, 10)).toEqual(['-c', '14', '-n', '14']);
});
