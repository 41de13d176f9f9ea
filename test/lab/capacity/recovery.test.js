'use strict';

const { recoveredFrom, waitRecovery, probeRate } = require('../../../lab/capacity/recovery');

const probeOf = (p50, errorsPct = 0, answered = 10) => ({ latencyMs: { p50 }, errorsPct, answered });

test('recovered: no more errors than before, and a median at most 3x (or 50 ms more than) the one before', () => {
  const before = probeOf(4);
  expect(recoveredFrom(before, probeOf(7))).toBe(true);
  expect(recoveredFrom(before, probeOf(54))).toBe(true); // 4 + 50 ms
  expect(recoveredFrom(before, probeOf(55))).toBe(false);
  expect(recoveredFrom(probeOf(100), probeOf(290))).toBe(true); // 3x
  expect(recoveredFrom(probeOf(100), probeOf(310))).toBe(false);
  expect(recoveredFrom(before, probeOf(5, 3))).toBe(false); // errors the baseline did not have
  expect(recoveredFrom(before, probeOf(5, 0, 0))).toBe(false); // nothing answered
  expect(probeRate(50)).toBe(5);
  expect(probeRate(3)).toBe(1);
  expect(probeRate(5000)).toBe(10);
});

test('the wait: probes until one answers as before, or the wait is over, each said', async () => {
  let t = 0;
  const now = () => t;
  const answers = [probeOf(900, 20), probeOf(300), probeOf(6)];
  const probe = async () => {
    t += 5000;
    return answers.shift();
  };
  const ok = await waitRecovery({ probe, baseline: probeOf(4), maxWaitS: 60, now });
  expect(ok).toMatchObject({ ok: true, probes: 3, waitedS: 15 });
  expect(ok.text).toBe('recovered in 15 s (3 probe(s): median 6 ms, 4 ms before the search)');

  t = 0;
  const never = await waitRecovery({
    probe: async () => ((t += 7000), probeOf(2000, 40)),
    baseline: probeOf(4),
    maxWaitS: 20,
    now,
  });
  expect(never).toMatchObject({ ok: false, probes: 3, waitedS: 21 });
  expect(never.text).toMatch(
    /^not recovered after 21 s \(3 probe\(s\): median 2000 ms and 40% errors, against 4 ms and 0% before the search\)$/,
  );
});
