'use strict';

const { findingsOf } = require('../../../lab/studies/tls');

const cell = (capacity, o = {}) => ({ capacity, atLeast: false, cpuPerConnection: 0.4, ...o });

test("what full handshakes cost, and what resumption gave back, from the capacities' knees", () => {
  const [fact] = findingsOf({ nginx: { plain: cell(1000), full: cell(600), resumed: cell(900) } }, ['nginx']);
  expect(fact).toBe(
    'TLS with a new connection per request cost nginx 0.4 ms of CPU each: its capacity fell from 1,000/s to 600/s: resumption gave back 75% of it (900/s).',
  );
});

test('capacities that are lower bounds (a search stopped at --max-rate) are not compared', () => {
  const [fact] = findingsOf(
    {
      nginx: {
        plain: cell(200, { atLeast: true }),
        full: cell(190, { atLeast: true }),
        resumed: cell(200, { atLeast: true }),
      },
    },
    ['nginx'],
  );
  expect(fact).toMatch(
    /its capacities are not compared: each held at least the rate its search stopped at, not a knee/,
  );
  expect(fact).not.toMatch(/fell|gave back/);
});
