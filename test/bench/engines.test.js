'use strict';

const { parseAb, parseWrk, verdicts } = require('../../bench/engines');

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

test("the issue's three ratios, on the better rounds, with their goals", () => {
  const best = {
    ab: { cpuUsPerRequest: 40 },
    fast: { cpuUsPerRequest: 110 },
    wrk: { cpuUsPerRequest: 10 },
    closed: { cpuUsPerRequest: 16 },
    ka: { cpuUsPerRequest: 30 },
  };
  expect(verdicts(best, ['ab', 'fast', 'wrk', 'closed', 'ka'])).toEqual([
    { what: 'fast (new connection per request) against ab', ratio: 2.75, goal: '<= 3x', met: true },
    { what: 'closed --keepalive against wrk', ratio: 1.6, goal: '<= 1.5x', met: false },
    { what: 'fast --keepalive (fixed rate) against closed --keepalive', ratio: 1.88, goal: '<= 1.5x', met: false },
  ]);
  expect(verdicts({}, ['ab', 'fast', 'wrk', 'closed', 'ka'])[0]).toMatchObject({ ratio: null, met: false });
});
