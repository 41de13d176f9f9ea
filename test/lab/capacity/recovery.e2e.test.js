'use strict';

const path = require('node:path');
const { lab, ownPlace, ROOT } = require('../../helper');

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

test('a service whose state grows: it did not recover, said so; with --fresh-per-level, a verified rate', async () => {
  const grow = ['/grow?us=50', '--app', app('growing'), '--deployments', 'single', '--slo', 'p99<200', ...quick];
  const { r, out } = await capacity([...grow, '--precision', '0.25', '--start', '20', '--recovery-wait', '15s']);
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  expect(r.code).toBe(1);
  const [d] = out.deployments;
  expect(d.maxRate).toBeNull();
  expect(['hysteresis', 'no-recovery']).toContain(d.bound);
  expect(d.text).toMatch(
    /the service did not recover \(its state grew, or its queue did not drain\); --fresh-per-level/,
  );
  expect(r.stderr).toMatch(/waiting for the service to answer as before the search/);

  const fresh = await capacity([...grow, '--precision', '0.25', '--start', '20', '--fresh-per-level']);
  expect(fresh.r.stderr).not.toMatch(/LAB_ERR/);
  const [f] = fresh.out.deployments;
  expect(f.maxRate).toBeGreaterThan(0);
  expect(f.verified.ok).toBe(true);
  expect(fresh.r.stderr).toMatch(/a fresh deployment for the level at/);
  expect(fresh.out.settings.freshPerLevel).toBe(true);
}, 800000);
