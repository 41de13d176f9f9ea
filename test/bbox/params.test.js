'use strict';

const { deriveParams, DELAY, WORKERS } = require('../../bbox/params');

describe('bbox parameters from the group key', () => {
  test("the default (empty) key gives the course report's black boxes", () => {
    expect(deriveParams('')).toEqual({
      bbox1: { kind: 'async', delayMs: 1100 },
      bbox2: { kind: 'sync', delayMs: 900, workers: 3 },
    });
  });

  test('the same key always gives the same parameters; keys differ', () => {
    expect(deriveParams('grupo-7')).toEqual(deriveParams('grupo-7'));
    const distinct = new Set(Array.from({ length: 50 }, (_, i) => JSON.stringify(deriveParams(`g${i}`))));
    expect(distinct.size).toBeGreaterThan(45);
  });

  test('every key gives one sync and one async box within the ranges groups reported', () => {
    const syncFirst = { true: 0, false: 0 };
    for (let i = 0; i < 500; i++) {
      const p = deriveParams(`key-${i}`);
      const kinds = [p.bbox1.kind, p.bbox2.kind].sort();
      expect(kinds).toEqual(['async', 'sync']);
      const sync = p.bbox1.kind === 'sync' ? p.bbox1 : p.bbox2;
      syncFirst[p.bbox1.kind === 'sync']++;
      expect(sync.workers).toBeGreaterThanOrEqual(WORKERS.min);
      expect(sync.workers).toBeLessThanOrEqual(WORKERS.max);
      for (const b of [p.bbox1, p.bbox2]) {
        expect(b.delayMs).toBeGreaterThanOrEqual(DELAY.min);
        expect(b.delayMs).toBeLessThanOrEqual(DELAY.max);
      }
    }
    // Either box can be the synchronous one.
    expect(syncFirst.true).toBeGreaterThan(150);
    expect(syncFirst.false).toBeGreaterThan(150);
  });
});
