'use strict';

const { progressLine } = require('../../../lab/terminal/progress');
const { snapshot, createProgress } = require('../../../lab/run/progress');

describe('the progress clock', () => {
  const phases = [{ name: 'constant 10/s', duration: 12, arrivalRate: 10 }];
  test('past the plan, the clock stops at its length and the wait is shown apart', () => {
    expect(progressLine({ elapsedS: 17, totalS: 12, phases, ...snapshot([]) })).toMatch(
      /^\[0:12 \/ 0:12 \+0:05\] \| .*finishing/,
    );
    expect(progressLine({ elapsedS: 12.4, totalS: 12, phases, ...snapshot([]) })).toMatch(/^\[0:12 \/ 0:12\] /);
  });
  test('before the first phase began, it says what it waits for; then it counts from the phase', () => {
    const lines = [];
    const stream = { isTTY: false, write: (l) => lines.push(l) };
    const p = createProgress({ phases, totalS: 12, stream });
    p.starting('starting load nodes: 1 of 2 ready');
    p.stop();
    expect(lines[0]).toBe('[0:00 / 0:12] | starting load nodes: 1 of 2 ready\n');
    const q = createProgress({ phases, totalS: 12, stream });
    q.onRecord({ type: 'start', at: Date.now() - 60000 });
    q.onRecord({ type: 'phase', index: 0, name: 'constant 10/s', at: Date.now() - 3000 });
    q.stop();
    expect(lines[1]).toMatch(/^\[0:03 \/ 0:12\] \| phase 1\/1 constant 10\/s/);
  });
});
