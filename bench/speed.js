'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The machine's speed over a bench, measured rather than assumed: every second, on each CPU,
// a fixed computation (the pricing service's own kind: square roots and sines) and the CPU
// time it took, from a child pinned to that CPU (taskset). Each CPU apart: on this machine the
// same work took 1.67 ms on one CPU and 1.03 ms on the other for minutes, then 1.07 on both
// (lab/measure/cpu-speeds.js), and a capped replica runs on whichever it is given. (This
// probe ran in the bench's own process until then, on whichever CPU it was given: its 1.1 and
// 1.8 ms, seconds apart, were the two CPUs.) About 0.2% of each core.

const { spawn } = require('node:child_process');
const os = require('node:os');
const readline = require('node:readline');

const { ROUNDS, WORK } = require('../lab/measure/cpu-speeds');

// The child's program: warmed first (a cold loop would read as a slow CPU), then one line
// of JSON a period, { at, cpuMs }, until its parent ends it.
const probeScript = (rounds, everyMs) => `
${WORK}
let sink=0;for(let i=0;i<50;i++)sink+=f(${rounds});
const tick=()=>{const b=process.cpuUsage();sink+=f(${rounds});const u=process.cpuUsage(b);
process.stdout.write(JSON.stringify({at:Date.now(),cpuMs:Math.round((u.user+u.system)/10)/100,s:sink>0})+'\\n');
setTimeout(tick,${everyMs})};tick();
`;

// Starts sampling every CPU; -> { samples: [{ cpu, at, cpuMs }], pids, stop() }. The children are
// this probe's own, ended by their pids by stop() (and with the bench's process: their stdin
// is its pipe, and a child whose parent is gone is ended by the closed pipe).
function startSpeedProbe({ everyMs = 1000, rounds = ROUNDS, cpus = os.cpus().length, taskset = 'taskset' } = {}) {
  const samples = [];
  const children = [];
  for (let cpu = 0; cpu < cpus; cpu++) {
    const child = spawn(
      taskset,
      [
        '-c',
        String(cpu),
        process.execPath,
        '-e',
        `process.stdin.on('end',()=>process.exit(0));process.stdin.resume();${probeScript(rounds, everyMs)}`,
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    child.on('error', () => {});
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        const { at, cpuMs } = JSON.parse(line);
        samples.push({ cpu, at, cpuMs });
      } catch {
        // (Not a sample: nothing to keep.)
      }
    });
    children.push(child);
  }
  return {
    samples,
    pids: children.map((c) => c.pid),
    stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill();
    },
  };
}

function median(values) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// The times a search's levels ran, from each level's folder (its monitor's samples:
// nodes.jsonl's `at`): [[from, to]] in ms.
function levelSpans(countDir) {
  if (!fs.existsSync(countDir)) return [];
  const spans = [];
  for (const level of fs.readdirSync(countDir).sort()) {
    const file = path.join(countDir, level, 'nodes.jsonl');
    if (!fs.existsSync(file)) continue;
    const at = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).at)
      .filter(Number.isFinite);
    if (at.length) spans.push([Math.min(...at), Math.max(...at)]);
  }
  return spans;
}

// What the fixed work cost while those spans ran: { medianMs, samples, byCpu: [{ cpu,
// medianMs, samples }] } (null when none fell in them). The median over all CPUs mixes them:
// byCpu says each.
function speedDuring(samples, spans) {
  const inside = samples.filter((s) => spans.some(([from, to]) => s.at >= from && s.at <= to));
  if (!inside.length) return null;
  const ms = (list) => Math.round(median(list.map((s) => s.cpuMs)) * 1000) / 1000;
  const cpus = [...new Set(inside.map((s) => s.cpu))].sort((a, b) => a - b);
  const byCpu = cpus.map((cpu) => {
    const own = inside.filter((s) => s.cpu === cpu);
    return { cpu, medianMs: ms(own), samples: own.length };
  });
  return { medianMs: ms(inside), samples: inside.length, byCpu };
}

module.exports = { startSpeedProbe, levelSpans, speedDuring, median };
