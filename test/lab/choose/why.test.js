'use strict';

const { whyOf } = require('../../../lab/choose/why');

// A level at the knee as lab/capacity/level.js gives it: its cost per tier and its profile.
const knee = (replicasCores, nginxCores) => ({
  rate: 100,
  dir: '/r/knee',
  answeredPerS: 98,
  cost: { tierCores: { replicas: replicasCores, nginx: nginxCores } },
  profile: {
    nodes: {
      'replica-1': {
        busyShare: 0.9,
        top: [{ name: 'computeDiscount', file: 'src/pricing.js', line: 4, selfShare: 0.8 }],
      },
      'replica-2': { busyShare: 0.9, top: [{ name: 'parse', file: 'node:internal/url', line: 9, selfShare: 0.1 }] },
      nginx: { busyShare: 0.2, top: [{ name: 'ngx_epoll', selfShare: 0.95 }] },
    },
    statements: [{ query: 'SELECT * FROM prices WHERE id = $1', calls: 900 }],
  },
});

test('the tier nearest its limit, against what it is given, and its own hottest function', () => {
  const w = whyOf(knee(0.57, 0.2), { replicas: 0.6 });
  expect(w.tier).toBe('replicas');
  expect(w.tiers.map((t) => [t.tier, t.busy])).toEqual([
    ['replicas', 0.95],
    ['nginx', 0.2],
  ]);
  // The replicas' function, not nginx's busier-looking one (its own process, another tier).
  expect(w.hottest).toMatchObject({ name: 'computeDiscount', node: 'replica-1' });
  expect(w.text).toBe(
    'at 100/s (98/s answered) the replicas used 95% of the 0.6 core(s) given, 0.57 on average over the level; their hottest function: computeDiscount (src/pricing.js:4), 80% of their samples; the costliest statement: SELECT * FROM prices WHERE id = $1',
  );
});

test('a level below the knee says so; the balancer named when it is the one at its limit', () => {
  expect(whyOf(knee(0.1, 0.05), { replicas: 0.6 }).text).toMatch(
    /^at 100\/s \(98\/s answered\) no tier was near its limit \(the busiest: the replicas used 17%/,
  );
  const entry = whyOf(knee(0.3, 0.9), { replicas: 0.6 });
  expect(entry.tier).toBe('nginx');
  expect(entry.hottest.name).toBe('ngx_epoll');
  expect(whyOf(null, {})).toBeNull();
});

test('a knee level that could not run: no profile, said with why; the choice stands on its check', () => {
  const w = whyOf({ rate: 26.04, failed: 'the level at 26/s: its run printed no summary' }, { replicas: 1 });
  expect(w).toMatchObject({ rate: 26.04, tier: null, hottest: null });
  expect(w.text).toBe(
    'no profile at the knee: the level at 26/s could not run (the level at 26/s: its run printed no summary); the choice stands on its check',
  );
});
