'use strict';

// The project test/lab/api/package.e2e.test.js installs the lab into: the lab packed (npm pack)
// into a folder of its own, a small service of the tests' own beside a package.json, and the
// tarball installed there as a user would. Prepared by the end-to-end set's global setup,
// before any file starts, when that file is among those run: an install is 80 s of CPU and a
// gigabyte written, 95 s on the quiet machine, but beside five other files (niced behind them,
// as the tests beside judge timings) it took 600 to 736 s and once over its 900 (CI runs E to
// the landing of 0f1d5aa). The test reads what was done and judges it; run without the global
// setup (its title filtered out, say), it prepares its own.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, runCommand, fixtureApp } = require('./helper');

const FILE = 'test/lab/api/package.e2e.test.js';
const TITLES = [
  'npx node-deploy-lab capacity in the project: its service searched, state and results in the project',
  "a Jest test of the project's calls require('node-deploy-lab').capacity and passes on its service",
];
const RECORD = 'prepared.json';
// (Playwright, one of Artillery's packages, downloads its browsers on install unless told:
// the lab runs Debian's Chromium, as docs/api.md says.)
const INSTALL_ENV = { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };

// Whether jest's selection (the set's files, its path pattern, its -t) runs the file's tests.
// (The container and cluster suites give a --testMatch of their own: not the file; they once
// packed and installed for nothing, 62 s each.)
function selected(globalConfig, projectConfig = {}) {
  const file = path.join(projectConfig.rootDir ?? ROOT, FILE);
  const globs = projectConfig.testMatch ?? [];
  if (globs.length && typeof path.matchesGlob === 'function' && !globs.some((g) => path.matchesGlob(file, g)))
    return false;
  const pattern = globalConfig.testPathPattern;
  if (pattern && !new RegExp(pattern, 'i').test(file)) return false;
  const names = globalConfig.testNamePattern;
  return !names || TITLES.some((t) => new RegExp(names, 'i').test(t));
}

// Packs the lab into `project` (made here), writes the project's service and package.json,
// installs the tarball; what each step said is recorded in the project's prepared.json, an
// error thrown on the way too (in the global setup, a throw would stop every file of the set,
// not only the one whose step failed).
async function prepare(project) {
  const started = Date.now();
  const record = {};
  try {
    await steps(project, record);
  } catch (err) {
    record.error = err.stack || String(err);
  }
  record.seconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(path.join(project, RECORD), JSON.stringify(record, null, 2));
  return record;
}

async function steps(project, record) {
  const packed = await runCommand('npm', ['pack', '--pack-destination', project, '--json'], {
    timeoutMs: 300000,
    env: { npm_config_loglevel: 'error' },
  });
  record.packed = { code: packed.code, timedOut: !!packed.timedOut, stderr: packed.stderr.slice(-2000) };
  if (packed.code === 0) {
    const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    record.filename = filename;
    record.shipped = files.map((f) => f.path);
    fs.copyFileSync(path.join(fixtureApp('paced'), 'server.js'), path.join(project, 'server.js'));
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'shop', version: '1.0.0', private: true, scripts: { start: 'node server.js' } }, null, 2),
    );
    const installed = await runCommand(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', path.join(project, filename)],
      // (A guard against a hang: 60 to 95 s on the quiet machine.)
      { cwd: project, env: INSTALL_ENV, timeoutMs: 600000 },
    );
    record.installed = { code: installed.code, timedOut: !!installed.timedOut, stderr: installed.stderr.slice(-2000) };
  }
}

// The global setup's part: the project prepared under the run's scratch root when the file
// runs, its folder handed to the test's worker through the environment.
async function prepareForRun(globalConfig, projectConfig) {
  if (!selected(globalConfig, projectConfig)) return;
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-project-'));
  process.stdout.write(`\nglobal setup: the lab packed and installed into ${project} for ${FILE} ...`);
  const record = await prepare(project);
  process.stdout.write(` ${record.seconds} s\n`);
  process.env.LAB_TEST_PACKAGE_PROJECT = project;
}

// The test's part: the prepared project and its record, or one prepared now.
async function projectForTest() {
  const given = process.env.LAB_TEST_PACKAGE_PROJECT;
  if (given && fs.existsSync(path.join(given, RECORD))) {
    return { project: given, record: JSON.parse(fs.readFileSync(path.join(given, RECORD), 'utf8')) };
  }
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-project-'));
  return { project, record: await prepare(project) };
}

module.exports = { prepareForRun, projectForTest, selected };
