'use strict';

const path = require('node:path');
const { lab, ownPlace, ROOT } = require('../../helper');
const { browserTest, launch, openPage, available } = require('../../browser');

// What it can take, on services of the tests' own that a stateless app's search never meets
// (lab/capacity/search.js, recovery.js, verify.js): one whose state grows with every request
// (test/fixtures/apps/growing: an overload leaves it slower), one slower than the search's
// first level (loops, /spin?ms=40), one whose knee moves with how long the load is held
// (tiring). Short levels (1 s of warm-up, 2 s held); CI runs this alone, after the other
// end-to-end files (jest.config.js ALONE), and each asserts the search's form and its words,
// with margins: a 2-core machine still has its own noise.
const app = (name) => path.join(ROOT, 'test', 'fixtures', 'apps', name);

async function capacity(args, timeoutMs = 400000) {
  const r = await lab(['capacity', ...args, '--json', ...(await ownPlace({ ports: 70 }))], { timeoutMs });
  let out = null;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    // printed nothing
  }
  return { r, out };
}

let browser;
beforeAll(async () => {
  if (available()) browser = await launch();
});
afterAll(async () => browser && browser.close());

browserTest(
  'a knee that moves with time: the verification steps down in growing steps until one holds, judged pooled; the page',
  async () => {
    const { r, out } = await capacity([
      '/work?us=40',
      '--app',
      app('tiring'),
      '--deployments',
      'single',
      '--slo',
      'p99<200',
      '--hold',
      '2s',
      '--warmup',
      '1s',
      '--repetitions',
      '2',
      '--precision',
      '0.1',
      '--start',
      '40',
    ]);
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    const [d] = out.deployments;
    expect(d.maxRate).toBeGreaterThan(0);
    expect(d.verified).toMatchObject({ ok: true, runs: 2 });
    // The rate the short levels held did not hold longer: stepped down until one did. (How far
    // depends on where the search's bisection landed on a busy machine; the growing steps
    // themselves are test/lab/capacity/verify.test.js's.)
    expect(d.verified.tries).toBeGreaterThanOrEqual(2);
    expect(d.text).toMatch(/verified at the \d+(nd|rd|th) try/);
    expect(r.stderr).toMatch(/verification at [\d.]+\/s: \d of 2 held on its own; pooled: broke/);
    // The page, as a person meets it: the recoveries and the verification said.
    const seen = await openPage(browser, path.join(out.resultsDir, 'capacity.html'), 'capacity-search-tiring');
    expect(seen.problems).toEqual([]);
    expect(seen.bad).toEqual([]);
    expect(seen.text).toMatch(/Recovery after each overload/);
    expect(seen.tables.find((t) => t.heads.includes('recovered')).rows).toBeGreaterThan(0);
    expect(seen.text).toMatch(/judged pooled, stepped down in growing steps/);
  },
  500000,
);
