#!/usr/bin/env node
'use strict';

// Signaling at scale (issue 15), two measurements on the `single` deployment:
//  1. memory per connection: the capacity command's estimate (RSS and heap of the service
//     process while 1k, 2k, 5k and 10k participants are held, and the fit);
//  2. 10,000 participants held: the signal scenario's endurance stages with --rate-scale 10
//     (a minute's ramp to 10,000, then held), each participant sending one update every
//     10 s; p99 relay latency (sender to receiver, through nginx and the service). Goal:
//     <= 50 ms.
//   node bench/signal.js [--levels 1000,2000,5000,10000] [--hold 20s] [--duration 2m]
// Needs `ulimit -n` above 21,000 (two descriptors per participant on this side: the
// generator's socket and nginx's; the service's own count in the same process limit only
// when they share one). Writes bench/results/signal.json with the machine it ran on.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, common } = require('./kit');

const tmp = (name) => fs.mkdtempSync(path.join(os.tmpdir(), `bench-signal-${name}-`));
const json = (r, what) => {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}`);
  return JSON.parse(r.out);
};

async function run(values) {
  const dirs = [];
  try {
    const capState = tmp('cap-state');
    const capResults = tmp('cap-results');
    dirs.push(capState, capResults);
    const cap = json(
      await lab([
        'capacity',
        '--no-verify',
        '--levels',
        values.levels,
        '--hold',
        values.hold,
        '--port-base',
        String(values['port-base']),
        '--state-dir',
        capState,
        '--results-dir',
        capResults,
        '--json',
      ]),
      'capacity',
    );
    const runState = tmp('run-state');
    const runDir = path.join(tmp('run'), 'run');
    dirs.push(runState, path.dirname(runDir));
    const s = json(
      await lab([
        'scenario',
        'signal',
        'endurance',
        'single',
        '--rate-scale',
        '10',
        '--duration',
        values.duration,
        '--port-base',
        String(values['port-base']),
        '--state-dir',
        runState,
        '--run-dir',
        runDir,
        '--json',
      ]),
      'scenario',
    );
    const sig = s.signal;
    const out = {
      memory: {
        points: cap.estimate.points.map((p) => ({
          connections: p.connections,
          rssMiB: Math.round((p.bytes / 2 ** 20) * 10) / 10,
          heapUsedMiB: Math.round((p.heapUsedBytes / 2 ** 20) * 10) / 10,
          rssKiBPerConnection: Math.round((p.bytes / p.connections / 1024) * 10) / 10,
        })),
        fit: cap.estimate.fit && {
          baseMiB: Math.round((cap.estimate.fit.baseBytes / 2 ** 20) * 10) / 10,
          perConnectionKiB: Math.round((cap.estimate.fit.perConnectionBytes / 1024) * 100) / 100,
          r2: Math.round(cap.estimate.fit.r2 * 10000) / 10000,
        },
        capacityFor500MiB: cap.estimate.capacity,
        failuresWhileHolding: cap.estimate.failuresWhileHolding,
      },
      held: {
        asked: sig.participants.target,
        peak: sig.participants.peak,
        sessions: sig.sessions,
        failures: sig.failures,
        failureCodes: sig.failureCodes,
        connectMs: sig.connectMs,
        relayMs: sig.relayMs,
        messages: sig.messages,
        updateEveryS: sig.room.updateEveryS,
        generator: s.generator,
        saturation: s.saturation,
        goal: 'p99 relay <= 50 ms with 10,000 participants',
        met: sig.participants.peak >= 10000 && sig.relayMs && sig.relayMs.p99 <= 50,
      },
    };
    return {
      headline: { memory: out.memory.fit, held: { peak: out.held.peak, relayMs: out.held.relayMs, met: out.held.met } },
      ...out,
    };
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

module.exports = bench(
  {
    name: 'signal',
    usage: 'node bench/signal.js [--levels 1000,2000,5000,10000] [--hold 20s] [--duration 2m] [--port-base 8080]',
    flags: {
      levels: { type: 'string', default: '1000,2000,5000,10000' },
      hold: { type: 'string', default: '20s' },
      duration: { type: 'string', default: '2m' },
      'port-base': common.portBase(8080),
    },
    run,
  },
  module,
);
