'use strict';

const path = require('node:path');
const { ROOT } = require('./helper');
const ByRecordedTime = require('./sequencer');

// jest's tests as its sequencer gets them, in a context with no cache of its own (a fresh clone).
const context = { config: { cache: false }, hasteFS: { getSize: () => 1000 } };
const testOf = (file) => ({ path: path.join(ROOT, file), context });

test('the longest files by the last committed CI first, a file it never timed before them all', () => {
  const s = new ByRecordedTime({ contexts: [context], globalConfig: {} });
  s.recorded = { 'test/a.e2e.test.js': 10000, 'test/b.e2e.test.js': 300000 };
  const order = s.sort(['test/a.e2e.test.js', 'test/new.e2e.test.js', 'test/b.e2e.test.js'].map(testOf));
  expect(order.map((t) => path.relative(ROOT, t.path))).toEqual([
    'test/new.e2e.test.js',
    'test/b.e2e.test.js',
    'test/a.e2e.test.js',
  ]);
});

test('the committed record times the end-to-end files', () => {
  const times = ByRecordedTime.recordedTimes();
  expect(times['test/lab/commands/choose.e2e.test.js']).toBeGreaterThan(60000);
  expect(ByRecordedTime.recordedTimes(path.join(ROOT, 'no-such-record.json'))).toEqual({});
});
