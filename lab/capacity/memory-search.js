'use strict';

// The signaling capacity search's two steps (npm run signal, docs/signaling-and-capacity.md):
// estimate (each level of participants held, the service's memory read over each hold, a line
// fitted) and verify (the service under the memory limit, participants rising until the first
// failure), with the deployment they run on and the service's /stats read once a second.

const { own } = require('../ownership/cleanups');
const { placeDeployment } = require('../runtime/deploy-plan');
const { resolveDeployment } = require('../topology/deployments');
const { runtimeFor } = require('../runtime');
const { GENERATORS } = require('../generators');
const { SIGNAL, REQUEST_TIMEOUT_S } = require('../../artillery/scenarios');
const { mib } = require('../topology/caps');
const { detect } = require('../runtime/cgroups');
const { get } = require('../http');

// Runs the signal generator through `stages` against `url`; calls onSecond(record) as each
// second comes, and resolves its records. stop() cuts it short.
function participants(url, stages, dir, onSecond = () => {}) {
  const gen = GENERATORS.signal.start(
    {
      target: url,
      name: 'signal',
      stages,
      ...SIGNAL.participant,
      timeoutMs: REQUEST_TIMEOUT_S * 1000,
      phases: stages.map((s) => ({ name: s.name, duration: s.duration })),
    },
    { dir, onRecord: (r) => r.type === 'second' && onSecond(r) },
  );
  const release = own(() => gen.stop());
  return {
    stop: () => gen.stop(),
    done: gen.done.then((r) => {
      release();
      return r;
    }),
  };
}

async function deploySingle(p, log, caps, serviceEnv) {
  const runtime = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host, log });
  runtime.assertNotUp();
  const release = own(() => runtime.down());
  const deployment = resolveDeployment('single');
  const { ports, graph } = placeDeployment(deployment, { portBase: p.ctx.portBase });
  const state = await runtime.up(deployment, ports, { graph, caps, serviceEnv });
  // Participants reach the service process itself, as the seed's clients reached its
  // server: through nginx each would hold two more descriptors there, and nginx's own
  // limits, not the service's memory, would end the verification.
  const direct = `http://${p.ctx.host}:${state.ports.replicas[0]}`;
  return {
    state,
    direct,
    stats: async () => JSON.parse((await get(`${direct}/stats`, { timeoutMs: 5000 })).body),
    down: async () => {
      await runtime.down();
      release();
    },
    runtime,
  };
}

// Reads the service's /stats once a second into `timeline` (one entry a second, named by
// its step) until stopped; `active()` is the participants the generator has connected.
function pollStats(d, step, active, timeline, limitBytes = null) {
  let polling = true;
  const done = (async () => {
    while (polling) {
      try {
        const s = await d.stats();
        timeline.push({
          step,
          at: Date.now(),
          active: active(),
          limitBytes,
          connections: s.signal?.connections ?? null,
          ...s.memory,
          // The process's collections since it started (service/gc-stats.js): how hard V8
          // works to stay under a limit, which RSS alone does not show.
          gcCollections: s.gc?.collections ?? null,
          gcMajor: s.gc?.major ?? null,
          gcPauseMs: s.gc?.pauseMs ?? null,
        });
      } catch {
        // a missed read is a missing point, not a failure (a service at its memory limit
        // answers late); the participants still count
        timeline.push({ step, at: Date.now(), active: active(), limitBytes, connections: null });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return async () => {
    polling = false;
    await done;
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stageOf = (from, to, rampPerS) => ({
  name: `${from} to ${to} participants`,
  duration: Math.max(1, Math.ceil(Math.abs(to - from) / rampPerS)),
  target: to,
});

// Step 1: hold each level, read the process's memory over the second half of each hold.
async function estimate(p, dir, log, timeline) {
  const d = await deploySingle(p, log, {}, {});
  try {
    const stages = [];
    let from = 0;
    for (const n of p.levels) {
      stages.push(stageOf(from, n, p.rampPerS));
      stages.push({ name: `hold ${n} participants`, duration: p.holdS, target: n, level: n });
      from = n;
    }
    log(`estimate: holding ${p.levels.join(', ')} connections, ${p.holdS} s each`);
    let active = 0;
    const run = participants(d.direct, stages, dir, (r) => (active = r.signal.active));
    const first = timeline.length;
    const stopPolling = pollStats(d, 'estimate', () => active, timeline);
    const t0 = Date.now();
    let records;
    let status;
    try {
      ({ records, status } = await run.done);
    } finally {
      await stopPolling();
    }
    const samples = timeline.slice(first).filter((s) => s.connections !== null);
    // Each hold's window, from the plan's own timing, counted from when the generator started
    // (its first second's start: a generator started seconds after it was spawned, on a busy
    // machine, once put a 3 s hold's window in the ramp before it, and its level was "not held").
    const points = [];
    let at = records.find((r) => r.type === 'second')?.at ?? t0;
    for (const st of stages) {
      const end = at + st.duration * 1000;
      if (st.level) {
        const inWindow = samples.filter((s) => s.at >= at + (st.duration * 1000) / 2 && s.at < end);
        const held = inWindow.filter((s) => s.connections !== null && s.connections >= st.level * 0.99);
        if (held.length) {
          points.push({
            n: st.level,
            connections: median(held.map((s) => s.connections)),
            bytes: median(held.map((s) => s.rssBytes)),
            heapUsedBytes: median(held.map((s) => s.heapUsedBytes)),
            samples: held.length,
          });
          log(
            `  ${st.level} connections: RSS ${mib(points.at(-1).bytes)} MiB, heap ${mib(points.at(-1).heapUsedBytes)} MiB`,
          );
        } else log(`  ${st.level} connections: not held (the service had ${inWindow.at(-1)?.connections ?? '?'})`);
      }
      at = end;
    }
    const failures = records
      .filter((r) => r.type === 'second')
      .reduce((a, r) => a + Object.values(r.errors).reduce((x, y) => x + y, 0), 0);
    return { points, status, failures };
  } finally {
    await d.down();
  }
}

// Step 2: the service under the limit; participants rise until the first failure (an error
// the generator saw, or the kernel's OOM kill), or until the generator's ceiling.
async function verify(p, limitBytes, target, dir, log, timeline, step) {
  const cgroups = detect() && process.getuid() === 0;
  const mibLimit = Math.floor(limitBytes / 2 ** 20);
  const caps = cgroups ? { 'replica-1': { cpuPct: null, memoryBytes: limitBytes } } : {};
  // Without cgroups, V8's heap limit is the nearest thing: it bounds the heap, not the RSS.
  const serviceEnv = cgroups ? {} : { NODE_OPTIONS: `--max-old-space-size=${mibLimit}` };
  const how = cgroups
    ? `a memory cgroup of ${mibLimit} MiB`
    : `--max-old-space-size=${mibLimit} (no cgroups here: heap only)`;
  const d = await deploySingle(p, log, caps, serviceEnv);
  try {
    log(`verify: up to ${target} participants, ${p.rampPerS}/s, under ${how}`);
    let failure = null;
    let peak = 0;
    let active = 0;
    let run = null;
    const stopPolling = pollStats(d, step, () => active, timeline, limitBytes);
    run = participants(
      d.direct,
      [stageOf(0, target, p.rampPerS), { name: `hold ${target}`, duration: 5, target }],
      dir,
      (r) => {
        active = r.signal.active;
        peak = Math.max(peak, r.signal.active);
        const errors = Object.entries(r.errors);
        if (!failure && errors.length) {
          failure = { participants: r.signal.active, at: r.at, errors: Object.fromEntries(errors) };
          log(
            `  first failure with ${r.signal.active} participants connected: ${errors.map(([k, v]) => `${k} ${v}`).join(', ')}`,
          );
          run.stop();
        }
      },
    );
    try {
      await run.done;
    } finally {
      await stopPolling();
    }
    const groups = cgroups ? d.runtime.readCaps(d.state) : {};
    const oomKills = groups['replica-1']?.oomKills ?? null;
    // No error seen while held, yet killed: as the hold ended or as every participant left.
    if (!failure && oomKills > 0)
      log(`  no failure while ${peak} were held, but the kernel OOM-killed the service as they left`);
    return {
      how,
      asked: target,
      peak,
      failure,
      oomKills,
      verified: failure ? failure.participants : null,
      limitedBy: failure
        ? 'the service'
        : target >= p.ceiling
          ? `this machine's open-file limit (${p.fds.soft} a process: the generator and the service each hold one a participant)`
          : 'the asked maximum',
    };
  } finally {
    await d.down();
  }
}

module.exports = { estimate, verify };
