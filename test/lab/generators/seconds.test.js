'use strict';

const { Seconds } = require('../../../lab/generators/seconds');
const { decode } = require('../../../lab/measure/histogram');

// A worker's per-second counting, with clock times given by the test (t0 = 10,000 ms).
const T0 = 10000;
const posted = (seconds, now, all = false, pending = 0) => {
  const out = [];
  seconds.flush(now, all, pending, (m) => out.push(m));
  return out;
};

test('a second is made when first counted; an early timer counts into second 0, never before t0', () => {
  const s = new Seconds({ t0: T0, byName: false, countVus: false });
  s.at(T0 - 3).launched += 1;
  s.at(T0 + 1500).completed += 1;
  s.at(T0 + 1500).latency.recordValue(2000);
  const m = posted(s, T0 + 2100);
  expect(m.map((x) => [x.sec, x.launched, x.completed])).toEqual([
    [0, 1, 0],
    [1, 0, 1],
  ]);
  expect(decode(m[1].latency).totalCount).toBe(1);
  expect(m[1]).not.toHaveProperty('arrivals');
  expect(m[1]).not.toHaveProperty('requests');
});

test('every second that is over is posted once, empty ones too; a late count goes into the next second not posted', () => {
  const s = new Seconds({ t0: T0, byName: false, countVus: true });
  s.at(T0 + 200).arrivals += 1;
  expect(posted(s, T0 + 3500).map((x) => [x.sec, x.arrivals])).toEqual([
    [0, 1],
    [1, 0],
    [2, 0],
  ]);
  expect(posted(s, T0 + 3600)).toEqual([]);
  // A timer a busy machine fired late: its due time is in second 1, already posted.
  s.at(T0 + 1200).launched += 1;
  // At the end (all), the seconds held are posted too, with what is still in flight.
  const end = posted(s, T0 + 3700, true, 2);
  expect(end.map((x) => [x.sec, x.launched, x.pending])).toEqual([[3, 1, 2]]);
});

test("with several request names each second carries each name's figures", () => {
  const s = new Seconds({ t0: T0, byName: true, countVus: false });
  const b = s.at(T0 + 10);
  s.named(b, 'GET /a').launched += 1;
  s.named(b, 'GET /a').latency.recordValue(1000);
  s.failure(b, { name: 'POST /b' }, 'ECONNRESET');
  const [m] = posted(s, T0 + 1001);
  expect(m.errors).toEqual({ ECONNRESET: 1 });
  expect(m.requests['GET /a']).toMatchObject({ launched: 1, completed: 0 });
  expect(decode(m.requests['GET /a'].latency).totalCount).toBe(1);
  expect(m.requests['POST /b'].errors).toEqual({ ECONNRESET: 1 });
});
