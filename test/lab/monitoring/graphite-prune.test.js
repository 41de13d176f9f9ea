'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pruneGraphite } = require('../../../lab/monitoring/graphite-prune');

// A whisper tree as StatsD's graphite backend names it: <kind>/lab/<run>/<metric>.wsp.
function whisper(runs, bytes = 1000) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whisper-'));
  runs.forEach((run, i) => {
    for (const kind of ['counters', 'timers']) {
      const d = path.join(dir, kind, 'lab', run);
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'm.wsp'), Buffer.alloc(bytes));
      const t = new Date(Date.UTC(2026, 0, 1, 0, i));
      fs.utimesSync(d, t, t);
    }
  });
  fs.mkdirSync(path.join(dir, 'statsd'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'statsd', 'x.wsp'), 'keep');
  return dir;
}
const runsLeft = (dir) => fs.readdirSync(path.join(dir, 'counters', 'lab')).sort();

describe('Graphite data pruning', () => {
  test('keeps the newest N runs, whole, and nothing outside lab/', () => {
    const names = Array.from({ length: 25 }, (_, i) => `run${String(i).padStart(2, '0')}`);
    const dir = whisper(names);
    const r = pruneGraphite(dir, { keepRuns: 20 });
    expect(r.removed.sort()).toEqual(names.slice(0, 5));
    expect(runsLeft(dir)).toEqual(names.slice(5));
    expect(fs.readdirSync(path.join(dir, 'timers', 'lab')).sort()).toEqual(names.slice(5));
    expect(fs.existsSync(path.join(dir, 'statsd', 'x.wsp'))).toBe(true);
  });

  test('a size cap removes the oldest first and always keeps the newest run', () => {
    const dir = whisper(['a', 'b', 'c'], 1000);
    const r = pruneGraphite(dir, { keepRuns: 20, maxBytes: 4500 });
    expect(r.removed).toEqual(['a']);
    expect(runsLeft(dir)).toEqual(['b', 'c']);
    pruneGraphite(dir, { maxBytes: 10 });
    expect(runsLeft(dir)).toEqual(['c']);
  });

  test('no whisper folder yet: nothing to do', () => {
    expect(pruneGraphite(path.join(os.tmpdir(), 'no-such-whisper-dir'))).toEqual({ removed: [], keptBytes: 0 });
  });
});
