'use strict';

const { scaleTo, rollout, rolloutBounds } = require('../../../lab/elastic/replicas');

// A runtime of names only: what scaleTo and rollout ask of one, and the most at once.
function fakeRuntime(n) {
  let names = Array.from({ length: n }, (_, i) => `replica-${i + 1}`);
  let seq = n + 1;
  const log = [];
  const rt = {
    most: n,
    least: n,
    log,
    replicaNames: () => names,
    addReplica: async ({ app } = {}) => {
      const name = `replica-${seq++}`;
      names = [...names, name];
      rt.most = Math.max(rt.most, names.length);
      log.push(`+${name}${app ? `@${app.name}` : ''}`);
      return { name };
    },
    removeReplica: async (name) => {
      names = names.filter((x) => x !== name);
      rt.least = Math.min(rt.least, names.length);
      log.push(`-${name}`);
      return { name };
    },
  };
  return rt;
}

describe('a count of replicas reached', () => {
  test('up by adding, down by removing the newest first', async () => {
    const rt = fakeRuntime(2);
    await scaleTo(rt, 4);
    expect(rt.replicaNames()).toEqual(['replica-1', 'replica-2', 'replica-3', 'replica-4']);
    await scaleTo(rt, 1);
    expect(rt.log).toEqual(['+replica-3', '+replica-4', '-replica-4', '-replica-3', '-replica-2']);
  });
});

describe("a rollout, as Kubernetes' RollingUpdate", () => {
  test('the defaults (25%): 4 replicas, surge 1, unavailable 1; 1 replica: surge 1, unavailable 0', () => {
    expect(rolloutBounds(4)).toEqual({ surge: 1, unavailable: 1 });
    expect(rolloutBounds(1)).toEqual({ surge: 1, unavailable: 0 });
    expect(rolloutBounds(3, { maxSurge: '0', maxUnavailable: '1' })).toEqual({ surge: 0, unavailable: 1 });
  });

  test('surge 1, unavailable 0: never fewer than 3 answering, never more than 4', async () => {
    const rt = fakeRuntime(3);
    const r = await rollout(rt, { maxSurge: '1', maxUnavailable: '0', app: { name: 'v2' } });
    expect(rt.replicaNames()).toEqual(['replica-4', 'replica-5', 'replica-6']);
    expect([rt.least, rt.most]).toEqual([3, 4]);
    expect(r.replaced).toEqual([
      { old: 'replica-1', new: 'replica-4' },
      { old: 'replica-2', new: 'replica-5' },
      { old: 'replica-3', new: 'replica-6' },
    ]);
    expect(rt.log[0]).toBe('+replica-4@v2');
  });

  test('surge 0, unavailable 1: one down at a time, never more than 3', async () => {
    const rt = fakeRuntime(3);
    await rollout(rt, { maxSurge: '0', maxUnavailable: '1' });
    expect(rt.replicaNames()).toHaveLength(3);
    expect([rt.least, rt.most]).toEqual([2, 3]);
    expect(rt.log[0]).toBe('-replica-1');
  });

  test('both 0 is refused, and so is a word', () => {
    expect(() => rolloutBounds(3, { maxSurge: '0', maxUnavailable: '0' })).toThrow(/no room/);
    expect(() => rolloutBounds(3, { maxSurge: 'lots' })).toThrow(/count or a percent/);
  });
});
