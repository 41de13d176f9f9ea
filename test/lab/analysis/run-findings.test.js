'use strict';

const { runFindings } = require('../../../lab/analysis/run-findings');

// Each finding from a crafted summary: the figures it reads, nothing else.
const summary = (rows, extra = {}) => ({ nodes: { rows }, requestsSent: 300, requestsFailed: 0, ...extra });

test('a replica restarted during the run is named, with its exit codes and the requests that failed', () => {
  const [f] = runFindings(
    summary(
      [
        { node: 'nginx', restarts: null },
        { node: 'replica-1', restarts: 7, exitCodes: { 1: 7 } },
        { node: 'replica-2', restarts: 0 },
      ],
      { answersFailed: { count: 89 } },
    ),
  );
  expect(f.id).toBe('restarts');
  expect(f.text).toMatch(
    /^replica-1 exited and was restarted 7 time\(s\) \(exit code 1\) during the run; 89 of 300 requests failed/,
  );
  expect(f.text).not.toMatch(/replica-2/);
  expect(f.rule).toMatch(/pm2/);
});

test('no restarts, or no node table: no finding', () => {
  expect(runFindings(summary([{ node: 'replica-1', restarts: 0 }]))).toEqual([]);
  expect(runFindings({})).toEqual([]);
});
