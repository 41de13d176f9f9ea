'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runLevel } = require('../../../lab/capacity/level');
const { listen, tmpStateDir } = require('../../helper');
const { parseSlo } = require('../../../lab/capacity/slo');

// A step of a search that outlives the search's time limit (issue 84): its child is stopped at
// the time left (timeoutS) and the level fails as cut, saying so, instead of carrying the search
// past its --time-limit. (The run is 30 s long against a server that never answers; the step is
// given 3 s.)
test("a level past the search's time left is stopped and recorded as cut", async () => {
  const srv = await listen(() => {}); // never answers
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'level-cut-')), '01-5');
  const t0 = Date.now();
  try {
    const err = await runLevel({
      words: ['/x', 'endurance'],
      target: srv.url,
      rate: 5,
      warmupS: 1,
      holdS: 29,
      dir,
      slos: [parseSlo('p99<200')],
      extra: [],
      context: ['--state-dir', tmpStateDir(), '--results-dir', tmpStateDir()],
      timeoutS: 3,
    }).then(
      () => null,
      (e) => e,
    );
    expect(err).toMatchObject({ code: 'LAB_ERR_PROCESS' });
    expect(err.message).toMatch(/the level at 5\/s.*cut by the search's time limit after 3 s/);
    // Stopped at its time-out (and its own cleanup), far before the run's 30 s.
    expect(Date.now() - t0).toBeLessThan(20000);
  } finally {
    await srv.close();
  }
}, 60000);
