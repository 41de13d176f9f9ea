'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The machine's speed over a bench, measured rather than assumed: every second, a fixed
// computation (the pricing service's own kind: square roots and sines) run in the bench's
// process, and the CPU time it took. On this machine the same work took 1.1 ms of CPU at
// one moment and 1.8 ms a few seconds later, idle, and a capped replica's cost a request fell
// from 2.7 to 1.4 ms over two minutes at a constant rate, the generator's with it: a capacity
// under a CPU cap (a share of CPU time) moves with the machine's speed. About 0.1% of a core.

const ROUNDS = 100000;

function work(rounds) {
  let x = 0;
  for (let i = 0; i < rounds; i++) x += Math.sqrt(i + 3) * Math.sin(i);
  return x;
}

// Starts sampling; -> { samples: [{ at, cpuMs }], stop() }.
function startSpeedProbe({ everyMs = 1000, rounds = ROUNDS } = {}) {
  // (Optimized before the first sample: a cold loop would read as a slow machine.)
  for (let i = 0; i < 50; i++) work(rounds);
  const samples = [];
  let sink = 0;
  let timer = null;
  const tick = () => {
    const before = process.cpuUsage();
    sink += work(rounds);
    const used = process.cpuUsage(before);
    samples.push({ at: Date.now(), cpuMs: Math.round((used.user + used.system) / 10) / 100 });
    timer = setTimeout(tick, everyMs);
    timer.unref();
  };
  tick();
  return {
    samples,
    stop() {
      clearTimeout(timer);
      return sink;
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

// What the fixed work cost while those spans ran: { medianMs, samples } (null when none fell
// in them).
function speedDuring(samples, spans) {
  const inside = samples.filter((s) => spans.some(([from, to]) => s.at >= from && s.at <= to)).map((s) => s.cpuMs);
  return inside.length ? { medianMs: Math.round(median(inside) * 1000) / 1000, samples: inside.length } : null;
}

module.exports = { startSpeedProbe, levelSpans, speedDuring, median };
