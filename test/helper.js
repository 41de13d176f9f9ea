'use strict';

const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.join(__dirname, '..');

// One GET on a fresh connection (no pooling, so timings are per request): the lab's own.
const { get } = require('../lab/http');

// Listens an http handler (or Express app) on a free loopback port.
function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({
        server,
        url,
        close: () =>
          new Promise((r) => {
            server.close(r);
            server.closeAllConnections();
          }),
      });
    });
  });
}

// A port that was free a moment ago (for programs that need it up front). Taken below the
// ephemeral range (32768+): there, a parallel test's outgoing connection can take it between
// the check and the listen (seen: EADDRINUSE on base+1 while Artillery ran next door).
function freePort() {
  return freePortBase(2);
}

// How a test's program starts: Node, or `first` (as root) Node under nice -10, so that it and
// all it starts run ahead of the other test files' processes.
const launcher = (first) =>
  first && process.getuid?.() === 0 ? ['nice', ['-n', '-10', process.execPath]] : [process.execPath, []];

// Starts `node <script> ...args` from the repository root; resolves once `ready(stderr)`
// holds. The returned handle stops it by pid. `first`: ahead of the other files' processes,
// as runProgram's.
function startProgram(script, args = [], { env = {}, ready = () => true, timeoutMs = 15000, first = false } = {}) {
  const [bin, argv] = launcher(first);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...argv, script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    // Not ready in time: SIGINT first, as runCommand's time-out, so that a lab command stops
    // what it started (a SIGKILL at once left a choice's nginx for the teardown), then SIGKILL
    // if it has not ended 20 s later.
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      const kill = setTimeout(() => child.kill('SIGKILL'), 20000);
      child.once('exit', () => clearTimeout(kill));
      reject(new Error(`${script} not ready in ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      if (ready(err)) {
        clearTimeout(timer);
        resolve(handle);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited ${code} before it was ready: ${err}`));
    });
    const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
    const handle = {
      child,
      pid: child.pid,
      output: () => ({ stdout: out, stderr: err }),
      exited,
      stop: async (signal = 'SIGTERM') => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        return exited;
      },
    };
  });
}

// Runs a program to completion and returns { code, stdout, stderr }. `first`: it and all it
// starts run ahead of the other test files' processes (nice -10, as root; else as they are),
// for the tests that judge a limit the test sets (a paced service's timers): beside five
// other files, a generator not scheduled for 100 ms was once named the limit of 20/s.
// (input: what its standard input reads, then its end: a job, `--job -`.)
function runProgram(script, args = [], { env = {}, timeoutMs = 30000, first = false, cwd = ROOT, input = null } = {}) {
  const [bin, argv] = launcher(first);
  return runCommand(bin, [...argv, script, ...args], { env, timeoutMs, cwd, input });
}

// Runs any program (npm, npx) to completion, as runProgram does: { code, stdout, stderr }.
function runCommand(bin, args, { env = {}, timeoutMs = 30000, cwd = ROOT, input = null } = {}) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== null) child.stdin.on('error', () => {}).end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Past its time-out: SIGINT first, as Ctrl-C, so that a lab command stops what it started
    // (a SIGKILL once left a sweep's pm2, five replicas and nginx for the teardown), then
    // SIGKILL if it has not ended 20 s later. `timedOut` says so.
    let timedOut = false;
    let kill = null;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGINT');
      kill = setTimeout(() => child.kill('SIGKILL'), 20000);
    }, timeoutMs);
    // Once its output is all read ('close'): 'exit' can come before the last of a large stdout,
    // and a capacity's JSON was once cut there. (At most 5 s after its exit: a process it left
    // holding the pipe would keep 'close' away for ever.)
    let ended = null;
    const end = () => {
      if (!ended) return;
      clearTimeout(timer);
      clearTimeout(kill);
      clearTimeout(ended.wait);
      resolve({ ...ended.how, stdout, stderr, ...(timedOut ? { timedOut: true } : {}) });
      ended = null;
    };
    child.on('exit', (code, signal) => {
      ended = { how: { code, signal }, wait: setTimeout(end, 5000) };
    });
    child.on('close', end);
  });
}

// A scenario model of one GET of `path` over `phases` (lab/scenario/model.js), for the tests
// that hand an engine its plan directly.
function oneRequestModel(phases, path = '/', timeoutS = 10) {
  const { checkModel } = require('../lab/scenario/model');
  return checkModel({
    name: 'test',
    source: { kind: 'catalogue' },
    phases,
    flows: [
      {
        name: 'x',
        weight: 1,
        steps: [{ request: { name: `GET ${path}`, method: 'GET', url: path, headers: {}, capture: [] } }],
      },
    ],
    timeoutS,
  });
}

// Waits until fn() holds, up to ms (20 ms apart): a message between processes arrives in
// a few ms on a quiet machine, but in hundreds beside other tests on two busy cores, so a
// test waits for it rather than for a fixed time. Returns fn()'s last answer.
async function until(fn, ms = 5000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (fn()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return fn();
}

// Runs fn over items, at most `limit` at once (processes a test starts on a busy 2-core machine:
// twelve Artillery runs at once beside four CPU hogs all missed their time-out).
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// Plain `artillery run` (the real one, from the lock file) on a script file, from its folder,
// its report written beside it (FILE.json), with Artillery's own flags before the file:
// { code, out } once it has ended. (Its phase, then its telemetry's wait at exit: far under
// the 180 s limit, even on a busy machine.)
// limitMs: stopped then (SIGKILL, its own child), or once stopWhen() says so (asked every
// 100 ms), as a script that never ends must be.
function artilleryRun(file, args = [], env = {}, { limitMs = 180000, stopWhen = null } = {}) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [require('../lab/generators/artillery-run').ARTILLERY, 'run', ...args, '-o', `${file}.json`, file],
      {
        cwd: path.dirname(file),
        env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true', DO_NOT_TRACK: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    const poll = stopWhen && setInterval(() => stopWhen() && child.kill('SIGKILL'), 100);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ code, out });
    });
  });
}

module.exports = {
  ROOT,
  get,
  listen,
  freePort,
  startProgram,
  runProgram,
  runCommand,
  oneRequestModel,
  until,
  pool,
  artilleryRun,
};

// A base port with `count` free ports after it, below the ephemeral range; random so that
// test files running in parallel do not collide.
async function freePortBase(count = 20) {
  const { tcpFree } = require('../lab/topology/ports');
  // Each jest worker draws from its own slice of the range: two test files running at once
  // can then never pick overlapping ranges (seen once: a port of a deployment that had just
  // gone down was taken by a parallel file's deployment before the check).
  // (One slice for each of the pool's six workers, jest.config.js's maxWorkers: with four
  // slices workers 5 and 6 shared those of 1 and 2, and a busy run once found a replica's port
  // taken by another file's deployment.)
  const worker = Math.max(1, Number(process.env.JEST_WORKER_ID) || 1);
  const slices = 6;
  // (The container and cluster suites run side by side in CI, each in band: a slice each,
  // below the end-to-end set's, where neither can draw the other's range.)
  const suite = { containers: 16000, cluster: 18000 }[process.env.LAB_TEST_SUITE];
  const sliceBase = suite ?? 20000 + ((worker - 1) % slices) * 2000;
  const now = Date.now();
  while (handedOut.length && handedOut[0][2] < now - HANDED_OUT_MS) handedOut.shift();
  // Every place in the slice, in a random order: first those not handed out lately, then (a
  // file that asked for many ranges within two minutes) the ones handed out longest ago.
  // (200 random draws once found none in a file that had asked for a dozen ranges.)
  const places = [...Array(90).keys()].map((i) => sliceBase + i * 20); // headroom for base + 100
  for (let i = places.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [places[i], places[j]] = [places[j], places[i]];
  }
  const lastGiven = (base) =>
    Math.max(0, ...handedOut.filter(([b, n]) => base < b + n && b < base + count).map(([, , when]) => when));
  places.sort((a, b) => lastGiven(a) - lastGiven(b));
  for (const base of places) {
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = await tcpFree(p, '127.0.0.1');
    if (ok) {
      handedOut.push([base, count, now]);
      return base;
    }
  }
  throw new Error(`no free range of ${count} ports found in ${sliceBase}-${sliceBase + 1900}`);
}
// The ranges given to this test file lately: [base, count, when], oldest first.
const handedOut = [];
const HANDED_OUT_MS = 120000;

// Runs the lab CLI: node lab/cli <args>.
function lab(args, opts = {}) {
  return runProgram('lab/cli', args, { timeoutMs: 120000, ...opts });
}

// A private state directory per test, so deployments of parallel tests never meet.
function tmpStateDir() {
  const fs = require('node:fs');
  const os = require('node:os');
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lab-state-'));
}

// The flags that give a lab command its own ports, state folder and results folder, so that
// tests running at once never meet: --port-base, --state-dir, --results-dir.
async function ownPlace({ ports = 20 } = {}) {
  return [...flagsOf({ portBase: await freePortBase(ports), stateDir: tmpStateDir(), resultsDir: tmpStateDir() })];
}

// A lab command that prints JSON (--json), in a place of its own: { r (its exit, stdout,
// stderr), out (its JSON), place (its own flags: stateOf(place) for its state) }; a command
// that printed none fails the test with its stderr.
async function labJson(args, { ports = 70, timeoutMs = 400000, first = false } = {}) {
  const place = await ownPlace({ ports });
  const r = await lab([...args, '--json', ...place], { timeoutMs, first });
  return { r, out: jsonOf(r), place };
}

// `lab scenario <words> --json` in a place of its own, then `extra`: its exit and output, with
// its stateDir and resultsDir.
async function scenarioRun(words, extra = [], { timeoutMs = 180000 } = {}) {
  const place = await ownPlace({ ports: 70 });
  const r = await lab(['scenario', ...words, '--json', ...place, ...extra], { timeoutMs });
  return { ...r, stateDir: stateOf(place), resultsDir: resultsOf(place) };
}

// The error code a lab command printed (its first line ends with [LAB_ERR_...]), or null.
function errorCode(stderr) {
  const m = /\[(LAB_ERR_[A-Z_]+)\]/.exec(stderr);
  return m ? m[1] : null;
}

// The code of the error `fn` throws, or 'accepted' when it throws none.
function codeOf(fn) {
  try {
    fn();
  } catch (err) {
    return err.code;
  }
  return 'accepted';
}

// What `fn` throws, as a refusal reads: { code, exit, message }; `accepted` (null unless
// given) when it throws none. An async `fn` gives a promise of the same.
function refusalOf(fn, accepted = null) {
  const of = (err) => ({ code: err.code, exit: err.exitCode, message: err.message });
  let out;
  try {
    out = fn();
  } catch (err) {
    return of(err);
  }
  if (out && typeof out.then === 'function') return out.then(() => accepted, of);
  return accepted;
}

// What a finished command said, on one screen, for a test's failure message: its exit, its
// signal (a time-out kills it), the status, errors and Artillery's verdict of its JSON when
// it printed one, and the end of its stderr. (A scenario of the Playwright engine once exited
// 1 in CI with no error code, and nothing showed why.)
function saidBy(r) {
  const tail = String(r.stderr || '')
    .trim()
    .split('\n')
    .slice(-15)
    .join('\n');
  let json = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    // described below by its first characters
  }
  const summary = json
    ? `; its JSON: ${JSON.stringify({ status: json.status, errors: json.errors, artillery: json.artillery, browser: json.browser?.codes })}`
    : `; it printed no JSON, its stdout began ${JSON.stringify(String(r.stdout).slice(0, 200))}`;
  return `exit ${r.code}${r.signal ? `, ${r.signal}` : ''}${r.timedOut ? ', stopped at its time-out' : ''}${summary}; the end of its stderr:\n${tail}`;
}

// A lab command's JSON (what --json printed), or an error that shows what it said instead.
// (A bare JSON.parse of an empty stdout failed with "Unexpected end of JSON input" and nothing
// of why.)
function jsonOf(r) {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`the command printed no JSON: ${saidBy(r)}`);
  }
}

// A lab command that ended with `code`, or an error that shows what it said instead.
function expectExit(r, code) {
  if (r.code !== code) throw new Error(`expected exit ${code}: ${saidBy(r)}`);
}

// The flags of ownPlace() a deployment takes (deploy has no --results-dir).
const forDeploy = (place) => place.filter((a, i) => a !== '--results-dir' && place[i - 1] !== '--results-dir');
// The state folder of ownPlace()'s flags.
const stateOf = (place) => place[place.indexOf('--state-dir') + 1];
// The results folder of ownPlace()'s flags.
const resultsOf = (place) => place[place.indexOf('--results-dir') + 1];

// A lab command's flags from its settings, so that a test's command reads as what it sets:
// { app: dir, rolloutAt: 5, profile: true, graphite: false } gives
// ['--app', dir, '--rollout-at', '5', '--profile', '--no-graphite'] (undefined is left out).
function flagsOf(settings) {
  const out = [];
  for (const [key, value] of Object.entries(settings)) {
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === undefined || value === true) {
      if (value) out.push(flag);
    } else if (value === false) out.push(`--no-${flag.slice(2)}`);
    else out.push(flag, String(value));
  }
  return out;
}

// `npm run study -- <name>`'s arguments: its settings as flags, in a place of its own
// (--port-base with `ports` free, --state-dir; the study's --dir is among the settings).
async function studyArgs(name, settings, { ports = 20, stateDir = tmpStateDir() } = {}) {
  return ['study', ...(name ? [name] : []), ...flagsOf({ ...settings, portBase: await freePortBase(ports), stateDir })];
}

// A service of the tests' own (test/fixtures/apps/<name>).
const fixtureApp = (name) => path.join(ROOT, 'test', 'fixtures', 'apps', name);

// Whether `n` ports from `base` are all free on loopback again.
async function portsFree(base, n = 11) {
  const { tcpFree } = require('../lab/topology/ports');
  for (let p = base; p < base + n; p++) if (!(await tcpFree(p, '127.0.0.1'))) return false;
  return true;
}

// Whether the lab says a deployment is up in `stateDir` (lab status --json).
async function isUp(stateDir) {
  return jsonOf(await lab(['status', '--state-dir', stateDir, '--json'])).up;
}

// A WebSocket participant of the signaling service at `url` that joined `room`: { ws, got
// (every message it received), id (its id, once joined; undefined if the join went unanswered
// for 3 s) }.
async function participant(url, room) {
  const WebSocket = require('ws');
  const ws = new WebSocket(`${url.replace('http', 'ws')}/signal`);
  const got = [];
  ws.on('message', (d) => got.push(JSON.parse(String(d))));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  ws.send(JSON.stringify({ type: 'join', room }));
  await until(() => got.some((m) => m.type === 'joined'), 3000);
  return { ws, got, id: got.find((m) => m.type === 'joined')?.id };
}

// The charts of a page the lab wrote, as their specs: each figure's data-chart attribute
// (lab/report/chart.js), its HTML escapes undone.
const UNESCAPE = { quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' };
function chartSpecs(html) {
  return [...String(html).matchAll(/data-chart="([^"]*)"/g)].map((m) =>
    JSON.parse(m[1].replace(/&(quot|#39|lt|gt|amp);/g, (_, e) => UNESCAPE[e])),
  );
}

module.exports.freePortBase = freePortBase;
module.exports.chartSpecs = chartSpecs;
module.exports.codeOf = codeOf;
module.exports.refusalOf = refusalOf;
module.exports.errorCode = errorCode;
module.exports.expectExit = expectExit;
module.exports.lab = lab;
module.exports.tmpStateDir = tmpStateDir;
module.exports.ownPlace = ownPlace;
module.exports.labJson = labJson;
module.exports.scenarioRun = scenarioRun;
module.exports.jsonOf = jsonOf;
module.exports.forDeploy = forDeploy;
module.exports.stateOf = stateOf;
module.exports.resultsOf = resultsOf;
module.exports.portsFree = portsFree;
module.exports.isUp = isUp;
module.exports.participant = participant;
module.exports.flagsOf = flagsOf;
module.exports.fixtureApp = fixtureApp;
module.exports.studyArgs = studyArgs;

// Every file of this repository `entry` requires, and every package, following its local
// requires (static ones: require('...') with a literal).
function requireClosure(entry) {
  const fs = require('node:fs');
  const files = new Set();
  const mods = new Set();
  const visit = (file) => {
    if (files.has(file)) return;
    files.add(file);
    const src = fs.readFileSync(file, 'utf8');
    for (const [, spec] of src.matchAll(/require\('([^']+)'\)/g)) {
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) visit(require.resolve(path.resolve(path.dirname(file), spec)));
      else mods.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  visit(path.join(ROOT, entry));
  return { files: [...files].map((f) => path.relative(ROOT, f)), mods: [...mods] };
}
module.exports.requireClosure = requireClosure;

// The rows of the tables in markup parsed by cheerio, as their cells' texts (a header row
// too): what a person reads in them.
function tableRows($) {
  return $('table tr')
    .toArray()
    .map((tr) =>
      $(tr)
        .find('td,th')
        .toArray()
        .map((c) => $(c).text().trim()),
    );
}
module.exports.tableRows = tableRows;
