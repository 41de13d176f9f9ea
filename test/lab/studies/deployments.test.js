'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { afterRun, freshAdvice } = require('../../../lab/studies/deployments');

// afterRun: a run whose every answer was a 4xx leaves out the other runs of its source (your
// service refuses that request in any deployment); anything else leaves the study as planned.
const made = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const step = { kind: 'scenario', id: 'nowhere-load-single', source: '/nowhere' };
const emptyDir = () => {
  made.push(fs.mkdtempSync(path.join(os.tmpdir(), 'lab-after-run-')));
  return made.at(-1);
};
function runDirWith(summary) {
  const dir = emptyDir();
  fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}
const summary = (codes, failed) => ({ codes, answersFailed: { count: failed } });

test('every answer a 4xx: this run fails with the codes seen, the rest of its source is left out', () => {
  const found = afterRun(step, runDirWith(summary({ 404: 590, 405: 10 }, 600)));
  expect(found.why).toMatch(
    /^every answer was a refusal \(404 x590, 405 x10\): your service refuses \/nowhere whichever the deployment, .*--endpoints \/a,\/b$/,
  );
  expect(found.skipWhy).toBe('/nowhere got only refusals in nowhere-load-single (404 x590, 405 x10)');
  expect(found.skip({ source: '/nowhere', id: 'nowhere-capacity' })).toBe(true);
  expect(found.skip({ source: '/api/items', id: 'api-items-load-single' })).toBe(false);
  // A script is named by its file, and the hint says to check its requests.
  const script = afterRun({ ...step, source: 'flow.yml' }, runDirWith(summary({ 404: 3 }, 3)));
  expect(script.why).toMatch(/refuses flow\.yml .*check the script's requests/);
});

test.each([
  ['one answer that succeeded', summary({ 200: 1, 404: 599 }, 599)],
  ['5xx: a deployment can cause those', summary({ 502: 600 }, 600)],
  ['4xx the run counted as expected (--expect-status)', summary({ 404: 600 }, 0)],
  ['no answer at all', summary({}, 0)],
])('%s: the study goes on as planned', (_, s) => {
  expect(afterRun(step, runDirWith(s))).toBe(null);
});

test('a capacity step, or a run with no summary, teaches nothing', () => {
  expect(afterRun({ ...step, kind: 'capacity' }, runDirWith(summary({ 404: 1 }, 1)))).toBe(null);
  expect(afterRun(step, emptyDir())).toBe(null);
});

// The deployments study's capacity section: a search that found a deployment that did not
// recover from an overload suggests --fresh-per-level, once, unless the study already used it.
test('a deployment that did not recover: the study suggests --fresh-per-level, naming it', () => {
  const c = (bounds, freshPerLevel = false) => ({
    settings: { freshPerLevel },
    deployments: bounds.map((bound, i) => ({ deployment: `d${i}`, bound })),
  });
  expect(freshAdvice(c(['deployment', 'hysteresis', 'no-recovery', 'drift', 'restarted']))).toMatch(
    /^d1, d2, d3, d4: the service changed during the capacity search \(drift: .*\), so no rate measured after it is a capacity, and the deployments are not ranked on such figures\. Run the study again with --fresh-per-level/,
  );
  expect(freshAdvice(c(['deployment', 'unverified']))).toBeNull();
  expect(freshAdvice(c(['hysteresis'], true))).toBeNull();
});
