'use strict';

const path = require('node:path');
const { labJson, ROOT, flagsOf } = require('../../helper');
const { journey, openPage } = require('../../browser');

// A knee that moves with how long the load lasts, on a service of the tests' own whose limit
// the test sets (test/fixtures/apps/paced: one request at a time, each served in 10 ms on a
// timer plus 600 us for every request served in the last 10 s): a level of 2 s (1 s of warm-up
// before it) holds up to about 21/s (r x (10 + 1.8 r) ms = 1 s), a 10 s verification (its
// window full) up to about 12/s (r x (10 + 6 r) ms = 1 s), whatever else the machine does.
// The search starts at 14/s, between the two knees: whatever its noisy levels do above the
// start, the rate it found is 14/s at least, and that rate breaks for 10 s. (At 400 us the
// 10 s knee was 15/s, above the start: in CI run L the verification saw nothing move, most
// likely a search ended near 15/s by levels broken early on a busy machine, a rate that then
// held for 10 s at once.)
// The verification tells it from a service that changed (./drift.js): the rate held, measured
// again for 2 s, holds. (At 3 s and 100 us the two knees were 44 and 29/s, and a search whose
// noisy levels ended at 28/s verified it at once: nothing moved. At 6 s against 3 they were 36
// and 44/s. At 5 ms and 200 us, beside four CPU hogs and other test files, the rate held,
// measured again, broke twice: the CPU each request costs, about 1 ms, waited for a core and
// counted for more of a 5 ms service time than of this 10 ms one.) The start of 14/s also
// makes its probes at rest go at 1/s: back to back at 3/s (from 30/s), their own requests
// kept 30 in the window, 12 ms more than the baseline's, and the service never answered as
// before the search: a probe's load is part of the state this service keeps.

const PACED = path.join(ROOT, 'test', 'fixtures', 'apps', 'paced');

journey(
  'a knee that moves with time: the verification says so, steps down to a rate held for its time',
  async () => {
    const { r, out } = await labJson(
      [
        'capacity',
        '/work?ms=10&per=600&window=10',
        ...flagsOf({
          app: PACED,
          deployments: 'single',
          slo: 'p99<200',
          hold: '2s',
          warmup: '1s',
          verifyHold: '10s',
          repetitions: 1,
          precision: 0.1,
          start: 14,
        }),
      ],
      { first: true },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    const [d] = out.deployments;
    // (On a machine busy with other test files the answer is "at least", and says why: the
    // knee and its words are the service's either way. Under p99<200 a generator late by more
    // than 20 ms at the level that broke is named with it, as the capacity rule says, and it
    // was, twice in four runs beside five files: what this test judges is the knee's move.)
    // (Read with its sentence, so that a failure says what the search saw: a CI run once ended
    // in 90 s on "no-recovery", with nothing more said.)
    expect(`${d.bound}: ${d.text}`).toMatch(/^(deployment|machine|generator): /);
    expect(d.moves).toMatchObject({ heldS: 2, brokeS: 10 });
    expect(d.maxRate).toBeLessThan(d.moves.rate);
    expect(d.text).toMatch(
      /^(at least )?[\d.]+\/s held for 10 s, verified at the \d+(nd|rd|th) try.*; [\d.]+\/s held for 2 s but not for 10 s: the knee moves with how long the load lasts/,
    );
    expect(r.stderr).toMatch(/[\d.]+\/s again for 2 s, as the search measured it: p99 [\d.]+ ms, held/);
    return out;
  },
  // The page, as a person meets it: the sentence, the verification's runs among the levels.
  async (out, browser) => {
    const seen = await openPage(browser, path.join(out.resultsDir, 'capacity.html'), 'capacity-knee-moves');
    expect(seen.problems).toEqual([]);
    expect(seen.bad).toEqual([]);
    expect(seen.text).toMatch(/held for 2 s but not for 10 s: the knee moves with how long the load lasts/);
    expect(seen.text).toMatch(/A capacity is the rate the verification held, for the time it held it/);
    expect(seen.tables.find((t) => t.heads.includes('recovered')).rows).toBeGreaterThan(0);
    expect(seen.text).toMatch(/verification at \d+:\d\d/);
    expect(seen.text).toMatch(/measured again at \d+:\d\d/);
  },
  { timeoutMs: 500000 },
);
