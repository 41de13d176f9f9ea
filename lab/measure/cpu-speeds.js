'use strict';

// Whether this machine's CPUs run at one speed: the same computation timed on each CPU in
// turn, pinned there (taskset), as CPU time. A capped replica runs on whichever CPU the kernel
// gives it, so where CPUs differ, a capacity read here moves with them from one search to the
// next, whatever the search does. Seen on this lab's own 2-core VM (bench/README.md): the
// same loop took 1.67 ms on one CPU and 1.03 ms on the other, for minutes, and later both
// 1.1 ms; a choice's sweep and a fresh search of the same count then differed by up to 34%.
const { execFile } = require('node:child_process');
const os = require('node:os');

// Apart from this, the CPUs are said to differ. (One CPU's own median repeats within about
// 5%: 1.61-1.78 ms on one, 1.01-1.08 ms on the other, 40 readings each three seconds apart.)
const SPREAD_PCT = 15;
// Each CPU's reading is bounded (a child that hangs is stopped by its pid: execFile's timeout).
const TIMEOUT_MS = 5000;
// The computation: a service's kind of CPU-bound loop (test/fixtures/apps/pricing), a few
// times to warm it, then timed, its median kept in ms.
const ROUNDS = 100000;
const WARM = 5;
const TIMED = 9;
// (Its source, one line: bench/speed.js's pinned probes run the same.)
const WORK = 'function f(r){let x=0;for(let i=0;i<r;i++)x+=Math.sqrt(i+3)*Math.sin(i);return x}';
const SCRIPT = `
${WORK}
let s=0;for(let i=0;i<${WARM};i++)s+=f(${ROUNDS});
const t=[];for(let k=0;k<${TIMED};k++){const c=process.cpuUsage();s+=f(${ROUNDS});const u=process.cpuUsage(c);t.push((u.user+u.system)/1000)}
t.sort((a,b)=>a-b);process.stdout.write(JSON.stringify({ms:t[${TIMED >> 1}],s:s>0}));
`;

// One CPU's reading -> its median ms, or throws with why.
function readOne(cpu, { taskset, node }) {
  return new Promise((resolve, reject) => {
    execFile(
      taskset,
      ['-c', String(cpu), node, '-e', SCRIPT],
      { timeout: TIMEOUT_MS, maxBuffer: 1 << 16 },
      (err, stdout, stderr) => {
        if (err) {
          const why =
            err.code === 'ENOENT'
              ? `${taskset} is not installed (util-linux's taskset pins the computation to each CPU)`
              : err.killed
                ? `CPU ${cpu}'s reading took more than ${TIMEOUT_MS / 1000} s`
                : `CPU ${cpu}'s reading failed: ${
                    String(stderr || err.message)
                      .trim()
                      .split('\n')[0]
                  }`;
          return reject(new Error(why));
        }
        const ms = Number(JSON.parse(stdout).ms);
        return Number.isFinite(ms) && ms > 0 ? resolve(Math.round(ms * 1000) / 1000) : reject(new Error('no reading'));
      },
    );
  });
}

// Every CPU's reading, one after the other (side by side they would share the machine's
// other work unevenly). -> { at, cpus: [{ cpu, ms }], spreadPct } or { at, unavailable }.
async function readCpuSpeeds({ cpus = os.cpus().length, taskset = 'taskset', node = process.execPath } = {}) {
  const at = new Date().toISOString();
  const out = [];
  try {
    for (let cpu = 0; cpu < cpus; cpu++) out.push({ cpu, ms: await readOne(cpu, { taskset, node }) });
  } catch (err) {
    return { at, unavailable: err.message };
  }
  return { at, cpus: out, spreadPct: spreadPct(out) };
}

// How far apart the slowest and the fastest CPU ran, in % of the fastest.
function spreadPct(cpus) {
  if (cpus.length < 2) return 0;
  const ms = cpus.map((c) => c.ms);
  return Math.round((Math.max(...ms) / Math.min(...ms) - 1) * 1000) / 10;
}

// The readings of one moment in words: "1.67 ms on CPU 0 and 1.03 ms on CPU 1 (62% apart)".
const momentText = (r) =>
  `${r.cpus
    .map((c) => `${c.ms} ms on CPU ${c.cpu}`)
    .join(', ')
    .replace(/, ([^,]*)$/, ' and $1')} (${r.spreadPct}% apart)`;

// The sentence a search says about its machine's CPUs, from its readings at its start and
// end (either may be missing: an interrupted search, a machine without taskset), or null
// when they agreed within SPREAD_PCT, or there is nothing to say.
function cpuSpeedsText({ start, end } = {}) {
  const moments = [
    ['at the start', start],
    ['at the end', end],
  ].filter(([, r]) => r?.cpus);
  const apart = moments.filter(([, r]) => r.spreadPct > SPREAD_PCT);
  if (apart.length === 0) return null;
  return `this machine's CPUs did not run at one speed: the same computation took ${apart.map(([when, r]) => `${momentText(r)} ${when}`).join('; ')}, over ${SPREAD_PCT}% apart; a replica runs on whichever CPU the kernel gives it, so a capacity read here can move by as much from one search to the next. For figures that repeat, a machine whose CPUs agree`;
}

module.exports = { SPREAD_PCT, TIMEOUT_MS, ROUNDS, WORK, readCpuSpeeds, spreadPct, cpuSpeedsText };
