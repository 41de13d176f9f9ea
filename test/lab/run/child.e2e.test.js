'use strict';

const { labChild, reasonOf } = require('../../../lab/run/child');

// A lab command as a child (lab/run/child.js): its stderr given line by line as it comes (a
// parent's progress: choose's autoscaler run says each change of the count), whole lines only,
// and its tail kept for the reason it failed.
test("a child's stderr, line by line and whole, and its reason when it fails", async () => {
  const lines = [];
  const { done } = labChild(['scenario', 'ping', 'load', 'single', '--rate', 'fast'], { onLine: (l) => lines.push(l) });
  const r = await done;
  expect(r.code).toBe(2);
  expect(lines.length).toBeGreaterThanOrEqual(1);
  expect(lines.find((l) => /--rate/.test(l))).toMatch(/^lab: .*--rate.*fast/);
  expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  expect(reasonOf(r.tail, r.code)).toMatch(/--rate.*fast/);
}, 30000);
