'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

// Every process the test suite started, found again: the suite's run token is in the
// environment of every process it starts (global-tmp.js sets LAB_TEST_RUN before jest starts
// its workers, and every child inherits it), and the suite's scratch folders are named after
// it (lab-tests-<token>-*), which is how the programs that rewrite their environment for
// their process title (nginx, redis-server) or run from there (carbon's --config, pm2's home)
// are found. A random token of this run: nothing else on the machine carries it, so these
// processes are provably the suite's. A carbon-cache of the suite's once outlived a green
// `npm test` (parent 1, its --config in the suite's folder); a failed teardown left a whole
// deployment up.
const VAR = 'LAB_TEST_RUN';
// Where a teardown notes what it had to stop.
const OUT = path.join(__dirname, '..', 'test-output');
const newToken = () => crypto.randomBytes(8).toString('hex');
const rootPrefix = (token) => `lab-tests-${token}-`;

const read = (file) => {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return null;
  }
};

// This process and its ancestors (they carry the token too), and jest's own workers.
function exempt() {
  const out = new Set();
  for (let pid = process.pid; pid > 1;) {
    out.add(pid);
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) break;
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return out;
}

// [{ pid, why, cmd }] of the processes of the suite whose token is `token`.
function suiteProcesses(token) {
  const skip = exempt();
  const mark = `${VAR}=${token}\0`;
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || skip.has(Number(name))) continue;
    const cmdline = read(`/proc/${name}/cmdline`);
    if (cmdline === null || cmdline === '') continue; // gone, or a kernel thread
    const cmd = cmdline.replace(/\0+$/, '').replace(/\0/g, ' ');
    if (/jest-worker|node_modules\/jest|\bjest\b.*--/.test(cmd)) continue;
    let why = null;
    if ((read(`/proc/${name}/environ`) || '').includes(mark)) why = 'its environment';
    else if (cmd.includes(rootPrefix(token))) why = 'its command line';
    else {
      try {
        if (fs.readlinkSync(`/proc/${name}/cwd`).includes(rootPrefix(token))) why = 'its working folder';
      } catch {
        // gone, or not ours to read
      }
    }
    const stat = read(`/proc/${name}/stat`);
    if (why && stat && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z')
      found.push({ pid: Number(name), why, cmd: cmd.slice(0, 200) });
  }
  return found;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    const stat = read(`/proc/${pid}/stat`);
    return Boolean(stat) && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

// SIGTERM, then SIGKILL for what is left after graceMs. Returns the pids still alive.
async function stopAll(list, graceMs = 3000) {
  const send = (sig) =>
    list.forEach(({ pid }) => {
      try {
        process.kill(pid, sig);
      } catch {
        // gone
      }
    });
  send('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (list.some((p) => alive(p.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  send('SIGKILL');
  await new Promise((r) => setTimeout(r, 300));
  return list.filter((p) => alive(p.pid)).map((p) => p.pid);
}

const describe = (list) => list.map((p) => `  pid ${p.pid} (by ${p.why}): ${p.cmd}`).join('\n');

// `node test/leftovers.js`: the check `npm test` ends with. Exit 1 when something of the
// suite's was still running (it is stopped, and named).
if (require.main === module) {
  (async () => {
    const token = process.env[VAR];
    if (!token) {
      process.stdout.write('leftovers: no LAB_TEST_RUN token: nothing to check\n');
      return;
    }
    // pm2's daemon and nginx may need a moment after the last test's down.
    let list = suiteProcesses(token);
    for (let i = 0; i < 20 && list.length; i++) {
      await new Promise((r) => setTimeout(r, 250));
      list = suiteProcesses(token);
    }
    const noted = read(path.join(OUT, 'leftovers.txt'));
    if (!list.length && !noted) {
      process.stdout.write('leftovers: no process of the suite is left running\n');
      return;
    }
    if (noted)
      process.stdout.write(`leftovers: the tests left processes running, which their teardown stopped:\n${noted}`);
    if (list.length) {
      process.stdout.write(
        `leftovers: ${list.length} process(es) of the suite were still running after it; stopped now:\n${describe(list)}\n`,
      );
      await stopAll(list);
    }
    // (.ci/run prints every failure just before its last line: which processes, in a line each.)
    const said = [noted, describe(list)]
      .filter(Boolean)
      .join('\n')
      .split('\n')
      .filter((l) => l.trim());
    fs.writeFileSync(
      path.join(OUT, 'failures-leftovers.txt'),
      `${said.map((l) => `leftovers: ${l.trim()}`).join('\n')}\n`,
    );
    process.exitCode = 1;
  })();
}

module.exports = { VAR, OUT, newToken, rootPrefix, suiteProcesses, stopAll, describe };
