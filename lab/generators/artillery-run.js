'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');
const { helperEnv } = require('../ownership/adopt');

// Artillery's command, found through its package.json (its `exports` keep bin/ private).
const ARTILLERY = artilleryBin();
function artilleryBin() {
  const pkg = require.resolve('artillery/package.json');
  return path.join(path.dirname(pkg), require(pkg).bin.artillery);
}
const PLUGIN_PATH = path.join(__dirname, '..', '..', 'artillery', 'plugins');
// How long past its report the lab waits for Artillery's verdict (its checks run then).
const VERDICT_WAIT_MS = 8000;

// Where Artillery looks for a script's plugins (artillery-plugin-NAME): the lab's own plugin
// folder, then the user's ARTILLERY_PLUGIN_PATH, then the node_modules of the script's folder
// and of each folder above it, as Node would resolve them from there. (A user's own `npx
// artillery run` finds a plugin installed beside Artillery in their project; the lab's
// Artillery is the lab's, and runs its copy of the script from the run folder, so a plugin
// installed beside the script is named to it.)
function pluginPath(scriptDir, userPath = '') {
  const dirs = [
    PLUGIN_PATH,
    ...String(userPath || '')
      .split(':')
      .filter(Boolean),
  ];
  for (let d = scriptDir ? path.resolve(scriptDir) : null; d;) {
    const modules = path.join(d, 'node_modules');
    if (fs.existsSync(modules)) dirs.push(modules);
    const up = path.dirname(d);
    d = up === d ? null : up;
  }
  return [...new Set(dirs)].join(':');
}

// Runs `artillery run` on a script file. Artillery's events (phases, each 10 s interval,
// done) arrive through the lab plugin's JSON-lines file and are passed to onEvent as they
// come. The run is over as soon as the -o report is complete: offline, Artillery 2 then
// waited ~13 s on telemetry before it exited (11.5 s against 23.5 s in a probe here), so the lab ends it
// itself instead of making users wait. Resolves { report, pid }.
// caFile: the CA of a --tls deployment, which Artillery's HTTP client trusts through Node's
// NODE_EXTRA_CA_CERTS; insecure: Artillery's own -k (no certificate checked); scriptDir: the
// user's script's folder, whose plugins Artillery is to find (pluginPath).
function runArtillery({
  scriptFile,
  outFile,
  eventsFile,
  logFile,
  onEvent = () => {},
  waitForExit = false,
  caFile = null,
  insecure = false,
  env = null,
  scriptDir = null,
}) {
  fs.writeFileSync(eventsFile, '');
  const log = fs.openSync(logFile, 'w');
  // Its own process group, so the lab can stop Artillery and its workers together.
  const child = spawn(process.execPath, [ARTILLERY, 'run', ...(insecure ? ['-k'] : []), '-o', outFile, scriptFile], {
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      // (--dotenv's values: under the environment, as dotenv loads them into Artillery's.)
      ...(env || {}),
      ...helperEnv(),
      ARTILLERY_PLUGIN_PATH: pluginPath(scriptDir, process.env.ARTILLERY_PLUGIN_PATH),
      ARTILLERY_DISABLE_TELEMETRY: 'true',
      DO_NOT_TRACK: '1',
      ...(caFile ? { NODE_EXTRA_CA_CERTS: caFile } : {}),
    },
  });
  fs.closeSync(log);

  let offset = 0;
  let partial = '';
  const readEvents = () => {
    let text;
    try {
      const fd = fs.openSync(eventsFile, 'r');
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      fs.closeSync(fd);
      offset = size;
      text = partial + buf.toString();
    } catch {
      return;
    }
    const lines = text.split('\n');
    partial = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      const e = JSON.parse(line);
      if (e.type === 'verdict') verdict = { exitCode: e.exitCode, checks };
      if (e.type === 'checks') checks = e.checks;
      onEvent(e);
    }
  };
  let verdict = null;
  let checks = [];

  const readReport = () => {
    try {
      const report = JSON.parse(fs.readFileSync(outFile, 'utf8'));
      return report && report.aggregate ? report : null;
    } catch {
      return null;
    }
  };

  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };

  const done = new Promise((resolve, reject) => {
    let finished = false;
    const finish = (fn) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      readEvents();
      stop();
      fn();
    };
    // Done when the report is complete and Artillery said its verdict (or a few seconds
    // after the report, from an Artillery whose plugins never said it).
    let reportAt = null;
    const timer = setInterval(() => {
      readEvents();
      const report = readReport();
      if (!report) return;
      reportAt ??= Date.now();
      // (A script's after section Artillery runs last, at its exit: waited for.)
      if (waitForExit) return;
      if (verdict || Date.now() - reportAt > VERDICT_WAIT_MS)
        finish(() => resolve({ report, pid: child.pid, verdict }));
    }, 250);
    child.on('exit', (code, signal) => {
      readEvents();
      const report = readReport();
      if (report)
        return finish(() => resolve({ report, pid: child.pid, verdict: verdict ?? { exitCode: code, checks } }));
      const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join(' | ');
      finish(() => reject(labError('LAB_ERR_ARTILLERY', `exited (${signal || code}) without a report: ${tail}`)));
    });
  });
  return { pid: child.pid, done, stop };
}

module.exports = runArtillery;
module.exports.pluginPath = pluginPath;
module.exports.ARTILLERY = ARTILLERY;
