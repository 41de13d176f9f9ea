'use strict';

// A sweep's record in choice.json, from its capacity.json (here read back, --from: no process).
const { measureOne } = require('../../../lab/choose/sweeps');

const APART =
  "this machine's CPUs did not run at one speed: the same computation took 1.67 ms on CPU 0 and 1.03 ms on CPU 1 (62.1% apart) at the start, over 15% apart; ...";
const result = (extra) => ({
  status: 'completed',
  scaling: { points: [{ replicas: 1, maxRate: 206.3 }] },
  deployments: [{ replicas: 1, maxRate: 206.3, replicaMemoryMiB: 102.3, broke: { rate: 215.7 } }],
  ...extra,
});

async function recordOf(capacity) {
  const out = { sweeps: [] };
  const lines = [];
  const io = { out, write: () => {}, log: (l) => lines.push(l), track: () => {} };
  const s = { id: 'replicated-50pct', fromResult: capacity };
  const sw = await measureOne({ from: '/earlier/choice' }, s, '/unused', io);
  return { sw, record: out.sweeps[0], lines };
}

test("a sweep whose machine's CPUs ran apart: its record says so, and the terminal", async () => {
  const { sw, record, lines } = await recordOf(result({ cpuSpeedsText: APART }));
  expect(sw.points).toEqual([{ replicas: 1, maxRate: 206.3, memoryMiB: 102.3, broke: 215.7 }]);
  expect(record).toEqual({
    id: 'replicated-50pct',
    dir: '/earlier/choice/sweeps/replicated-50pct',
    points: sw.points,
    cpuSpeedsText: APART,
  });
  expect(lines).toEqual([`measure replicated-50pct: ${APART}`]);
});

test('CPUs that agreed: nothing said, no such field', async () => {
  const { record, lines } = await recordOf(result({ cpuSpeeds: { start: { cpus: [] } } }));
  expect(record).not.toHaveProperty('cpuSpeedsText');
  expect(lines).toEqual([]);
});
