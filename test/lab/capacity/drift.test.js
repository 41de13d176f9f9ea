'use strict';

const { settledDrift, againDrift, driftText } = require('../../../lab/capacity/drift');

const probe = (p50, errorsPct = 0, more = {}) => ({ rate: 5, latencyMs: { p50 }, errorsPct, ...more });

// The real service of the capacity issue: a 5/s probe's median from 4.9 ms to 12.6 ms, under
// the recovery rule's limit, while what held at first no longer did.
test('a probe at rest 1.5x and 5 ms slower than the baseline, or with more errors, is drift; noise is not', () => {
  const d = settledDrift(probe(4.9), probe(12.6, 0, { atS: 750 }));
  expect(d).toMatchObject({ rule: 'settled', from: 4.9, to: 12.6 });
  expect(d.text).toBe(
    'a 5/s probe at rest answered slower than before the search (its median went from 4.9 ms to 12.6 ms at 12:30)',
  );
  expect(settledDrift(probe(4.9), probe(9.8))).toBeNull(); // 2x, but under 5 ms more
  expect(settledDrift(probe(20), probe(29))).toBeNull(); // 9 ms more, but under 1.5x
  expect(settledDrift(probe(20), probe(30))).not.toBeNull();
  expect(settledDrift(probe(2), probe(2, 4)).text).toMatch(/its errors went from 0% to 4%/);
  expect(settledDrift(null, probe(100))).toBeNull();
});

test('what held no longer holds, twice, as the search measured it: drift; held once of the two: not', () => {
  const held = { rate: 50, holdS: 20, atS: 130 };
  const broke = { rate: 50, holdS: 40, atS: 760, ok: false };
  const again = [
    { rate: 50, holdS: 20, atS: 830, ok: false },
    { rate: 50, holdS: 20, atS: 900, ok: false },
  ];
  expect(againDrift(held, broke, again).text).toBe(
    '50/s held for 20 s at 2:10 but not for 40 s at 12:40, nor again for 20 s at 15:00',
  );
  expect(againDrift(held, broke, [again[0], { ...again[1], ok: true }])).toBeNull();
  expect(againDrift(held, broke, [again[0]])).toBeNull();
  // The sentence says what to do.
  expect(driftText(againDrift(held, broke, again))).toMatch(
    /: the service changed under its search \(drift: what held at first no longer holds\), so its capacity depends on its state and no rate measured now is it\. Measure it with --fresh-per-level .*, or reset its data with --app-setup$/,
  );
});

test('on a machine too busy to tell, neither rule claims drift; held once in the search, neither does the second', () => {
  // (Others busy: the machine's cores less the run's own processes, more than at the baseline.)
  expect(settledDrift(probe(4.9), probe(12.6, 0, { coresShare: 0.96, machineShare: 0.1 }))).toBeNull();
  // The service's own processes busy are no such doubt; nor other work as busy at the baseline.
  expect(settledDrift(probe(4.9), probe(12.6, 0, { coresShare: 0.96, machineShare: 0.9 }))).not.toBeNull();
  const busyBoth = { coresShare: 0.9, machineShare: 0.1 };
  expect(settledDrift(probe(4.9, 0, busyBoth), probe(12.6, 0, busyBoth))).not.toBeNull();
  const held = { rate: 50, holdS: 20 };
  const broke = { rate: 50, holdS: 40, ok: false };
  const again = [
    { rate: 50, holdS: 20, ok: false },
    { rate: 50, holdS: 20, ok: false, coresShare: 0.9, machineShare: 0.2 },
  ];
  expect(againDrift(held, broke, again)).toBeNull();
  expect(againDrift(held, broke, [again[0], again[0]], 1)).toBeNull();
  expect(againDrift(held, broke, [again[0], again[0]], 2)).not.toBeNull();
});
