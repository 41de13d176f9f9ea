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
const quick = ['--hold', '2s', '--warmup', '1s', '--repetitions', '1'];

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

test('a first level that breaks is stepped down until one holds, then bisected and verified', async () => {
  const { r, out } = await capacity([
    '/spin?ms=40',
    '--app',
    app('loops'),
    '--deployments',
    'single',
    '--slo',
    'p99<500',
    ...quick,
    '--precision',
    '0.25',
    '--start',
    '100',
  ]);
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const rates = out.levels.map((l) => l.rate);
  // 100/s of 40 ms each is four cores' worth: it breaks, and the search halves.
  expect(rates[0]).toBe(100);
  expect(out.levels[0].ok).toBe(false);
  expect(rates).toContain(50);
  const [d] = out.deployments;
  expect(d.maxRate).toBeGreaterThan(0);
  expect(d.maxRate).toBeLessThan(100);
}, 500000);

browserTest(
  'two deployments that both run out of this machine: the machine is said to be the limit, and nothing is ranked',
  async () => {
    // Three processes each (multi: three workers; replicated: three replicas) of 10 ms a request
    // on two cores: both break where the cores do.
    const { r, out } = await capacity([
      '/spin?ms=10',
      '--app',
      app('loops'),
      '--deployments',
      'multi,replicated',
      '--slo',
      'p99<300',
      ...quick,
      '--precision',
      '0.2',
      '--start',
      '100',
    ]);
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect(out.machineLimit.text).toMatch(
      /^this machine's \d+ cores set the limit at about [\d.]+\/s for every deployment \(multi broke at [\d.]+\/s, its cores \d+% busy; replicated broke at/,
    );
    expect(out.best).toBeNull();
    expect(r.stdout).toMatch(/the deployments cannot be told apart on this machine/);
    const seen = await openPage(browser, path.join(out.resultsDir, 'capacity.html'), 'capacity-machine-limit');
    expect(seen.problems).toEqual([]);
    expect(seen.text).toMatch(/this machine's \d+ cores set the limit at about/);
    expect(seen.text).not.toMatch(/holds the most per core/);
  },
  500000,
);
