'use strict';

const { profileLines } = require('../../../lab/results/render-profile');
const { runFindings } = require('../../../lab/analysis/run-findings');

// A profile asked of a service whose processes are not Node's: no profile came back. It is
// said, in the profile's lines and among the findings (an empty "Where the CPU went" heading
// once stood there alone).
test('no process sent a profile: said under the heading and among the findings, never an empty heading', () => {
  const s = { profile: { window: { fromS: 2, toS: 12 }, intervalUs: 1000, notes: [], nodes: {} } };
  const lines = profileLines(s);
  expect(lines[0]).toMatch(/^Where the CPU went \(--profile, 2-12 s of the load/);
  expect(lines[1]).toMatch(/no process of the service sent a profile: the profiler runs in Node processes/);
  const f = runFindings(s).find((x) => x.id === 'profile');
  expect(f.text).toMatch(/^the profile \(--profile\): no process of the service sent a profile/);
  // The summary itself is not changed by reading it.
  expect(s.profile.notes).toEqual([]);
});

test("a window that could not be taken, or statements read at the load's end: said as notes, and as a finding", () => {
  const s = {
    profile: {
      window: null,
      notes: ['no profile: no window could be taken (the window ends at 110 s, after the run\'s 6 s)'],
    },
  };
  expect(profileLines(s)).toEqual([
    'Where the CPU went (--profile):',
    "  no profile: no window could be taken (the window ends at 110 s, after the run's 6 s)",
  ]);
  expect(runFindings(s).find((x) => x.id === 'profile').text).toMatch(/no window could be taken/);
});
