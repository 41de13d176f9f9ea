'use strict';

const gcStats = require('../../service/gc-stats');

describe("the process's garbage collections (service/gc-stats.js)", () => {
  test('collections are counted by kind as they happen, with the time they paused the process', async () => {
    const gc = gcStats();
    try {
      expect(gc.read()).toEqual({ collections: 0, minor: 0, major: 0, incremental: 0, weakcb: 0, pauseMs: 0 });
      // Short-lived garbage: the young generation fills and is collected (minor collections).
      for (let round = 0; round < 20; round++) {
        let keep = [];
        for (let i = 0; i < 100000; i++) keep.push({ i, s: `x${i}` });
        keep = null;
      }
      // The observer is told after the collections, on a later turn.
      await new Promise((r) => setTimeout(r, 50));
      const r = gc.read();
      expect(r.collections).toBeGreaterThan(0);
      expect(r.collections).toBe(r.minor + r.major + r.incremental + r.weakcb);
      expect(r.pauseMs).toBeGreaterThan(0);
    } finally {
      gc.stop();
    }
  });
});
