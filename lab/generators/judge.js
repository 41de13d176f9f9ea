'use strict';

// The load generator judges itself: what it was (its loop, threads, precision, CPU, memory,
// connections, load nodes) and whether it, not the system, set the limit of a run. The
// summary (lab/results/summary.js) asks this of every generator alike; each plugin's own
// declarations (its loop, its precision, lab/generators/plugins/) come in with the run.

const round1 = (v) => (v === null || v === undefined || Number.isNaN(v) ? null : Math.round(v * 10) / 10);

// Below this share of the asked arrivals, or above this p99 send lag, a phase is flagged:
// the generator, not the system, may have set the limit.
// A closed loop at or above closedCpuPct of a core in a phase (its mean) may be what set the rate.
// A generator is the one using the CPU from generatorBusyPct of a core a thread; the machine
// is busy when its cores were machineBusyShare busy, or other programs (not the run's) used
// othersBusyPct of a core. A run at 8 arrivals a second with a 23 ms send lag blamed the
// generator, which used 4% of a core, on a machine busy with other work.
// A send lag is blamed only when it explains the latency: at least lagShare of the phase's
// p99 response time (timed from due times, so it includes the lag). A 5 ms lag beside a
// 1.9 s p99 once had the generator "set the limit" of a service that was the slow one.
const SATURATION = Object.freeze({
  minRatio: 0.99,
  maxLagP99Ms: 5,
  lagShare: 0.25,
  minPhaseS: 5,
  closedCpuPct: 90,
  generatorBusyPct: 50,
  machineBusyShare: 0.85,
  othersBusyPct: 50,
});

function generatorFigures(samples) {
  if (!samples.length) return {};
  const cpu = samples.map((s) => s.cpuPct);
  const rss = samples.map((s) => s.rssMiB);
  // Memory trend over the second half of the run (the first half includes start-up).
  const half = samples.slice(Math.floor(samples.length / 2));
  let slope = null;
  // Only over a minute or more: a short run's memory is still start-up, not a trend.
  if (half.length >= 60) {
    const t0 = half[0].at;
    const xs = half.map((s) => (s.at - t0) / 60000);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = half.reduce((a, s) => a + s.rssMiB, 0) / half.length;
    let num = 0;
    let den = 0;
    half.forEach((s, i) => ((num += (xs[i] - mx) * (s.rssMiB - my)), (den += (xs[i] - mx) ** 2)));
    slope = den ? num / den : null;
  }
  return {
    samples: samples.length,
    cpuPctMean: round1(cpu.reduce((a, b) => a + b, 0) / cpu.length),
    cpuPctMax: round1(Math.max(...cpu)),
    rssMiBStart: rss[0],
    rssMiBMax: Math.max(...rss),
    rssMiBEnd: rss[rss.length - 1],
    rssGrowthMiBPerMin: round1(slope),
  };
}

// CPU-seconds the generator used: its own account when it gives one, else the sampler's.
function generatorCpuS(done, samples) {
  if (done && typeof done.cpuS === 'number') return done.cpuS;
  if (samples.length < 2) return null;
  let s = 0;
  for (let i = 1; i < samples.length; i++)
    s += (samples[i].cpuPct / 100) * ((samples[i].at - samples[i - 1].at) / 1000);
  return s;
}

// The load generator's part of the summary: what it is, its start-up, its CPU per request,
// its connections, its load nodes. g: the run's records as gather() read them
// (lab/measure/records.js).
function describeGenerator(run, g, { name, closed, samples, launched }) {
  const { start, done, firstPhaseAt } = g;
  const cpuS = generatorCpuS(done, samples);
  // From asking the generator to start to its first phase: Artillery loading, load nodes
  // coming up (tens of seconds on emulated nodes). The run's clock starts after it.
  const asked = Date.parse(run.startedAt);
  const generator = {
    name,
    startupS:
      firstPhaseAt !== undefined && Number.isFinite(asked) ? round1(Math.max(0, (firstPhaseAt - asked) / 1000)) : null,
    loop: closed ? 'closed' : 'open',
    workers: run.generator?.workers ?? start?.workers ?? 1,
    // (Each generator says how it measures: its plugin's precision, lab/generators/plugins/.)
    latencyPrecision: run.generator?.precision ?? null,
    cpuS: round1(cpuS),
    cpuMsPerRequest: cpuS !== null && launched ? Math.round((cpuS * 1e6) / launched) / 1000 : null,
    ...generatorFigures(samples),
  };
  // The lab's own engines say how they used connections (kept alive, pipelined) and how
  // many they opened: a run with 50 kept-alive connections that opened 3,000 was not one.
  const how = start?.connections;
  if (how) {
    generator.connections = { ...how, ...(done?.connectionsOpened ? { opened: done.connectionsOpened } : {}) };
    generator.connectionsText = connectionsText(generator.connections);
  }
  // How late the lab's own engine's loop ran (its latest thread's, in ms over its sampling):
  // every time it measured includes that much of reading late.
  if (done?.loopLateMs) generator.loopLateMs = done.loopLateMs;
  // A generator spread over load nodes (--load-nodes): a row per node, with its clock.
  const loadNodes = done?.loadNodes ?? start?.loadNodes ?? null;
  if (loadNodes) {
    generator.nodes = loadNodes;
    generator.nodesNote =
      "the generator ran on these nodes; each node's clock offset to the lab's was measured at start (NTP-style, from the ping with the shortest round trip) and its seconds placed on the lab's clock; CPU is the busiest node's, second by second";
  }
  return generator;
}

// How a generator used its connections, in words for the terminal and the report.
function connectionsText(c) {
  if (c.http2) {
    const opened = c.opened ? ` (${c.opened} opened)` : '';
    return c.keptAlive
      ? `HTTP/2 sessions${opened}, up to ${c.pipelining} stream(s) in flight on each`
      : 'a new HTTP/2 session per virtual user';
  }
  if (!c.keptAlive) return 'a new connection per request';
  const opened = c.opened ? ` (${c.opened} opened)` : '';
  return c.pipelining > 1
    ? `kept-alive connections${opened}, pipelined: up to ${c.pipelining} requests in flight on each`
    : `kept-alive connections${opened}`;
}

// Says whether the load generator, not the system, set the limit. An open loop's arrivals do
// not wait for answers, so launching under the asked rate, or late (send lag), means the
// generator could not keep up. A closed loop's rate is the system's answer, unless the
// generator's CPU is what ran out.
// A phase launched short of its asked rate: under minRatio, and by more arrivals than its
// boundaries can misplace. An arrival due on a boundary may be counted in the phase beside
// it (a 5 s base at 10/s after a spike read 49 of 50, 9.8/s, while the run launched every
// arrival asked), and one arrival is never evidence of a generator's limit.
function launchedShort(p, phases) {
  if (p.ratio === null || p.ratio >= SATURATION.minRatio || !(p.targetRate?.mean >= 1)) return false;
  const i = phases.indexOf(p);
  const boundaries = (i > 0 ? 1 : 0) + (i >= 0 && i < phases.length - 1 ? 1 : 0);
  const asked = p.targetRate.mean * p.durationS;
  const launched = Number.isFinite(p.launched) ? p.launched : p.ratio * asked;
  return asked - launched > Math.max(1, boundaries);
}

// Late enough, and a large enough share of the latency, to be what the figures measured.
function lagExplains(p) {
  if (p.sendLagP99Ms == null || p.sendLagP99Ms <= SATURATION.maxLagP99Ms) return false;
  return p.responseP99Ms == null || p.sendLagP99Ms >= SATURATION.lagShare * p.responseP99Ms;
}

function judgeGenerator(phases, status, options = {}) {
  const nodes = options.generator?.nodes;
  const lost = (nodes || []).filter((n) => n.lost);
  if (lost.length) return lostNodes(phases, lost, options);
  const verdict = judgeOne(phases, status, options);
  if (!nodes || !nodes.length || (!verdict.saturated && !/core/.test(verdict.verdict))) return verdict;
  // Which load node fell behind: the latest sender (open loop), else the busiest.
  const key = options.closed ? (n) => n.cpuPctMean ?? 0 : (n) => n.sendLagMs?.p99 ?? 0;
  const worst = nodes.reduce((a, n) => (key(n) > key(a) ? n : a), nodes[0]);
  return {
    ...verdict,
    node: worst.node,
    verdict: `${verdict.verdict}; the node that fell behind most: ${worst.node} (p99 send lag ${worst.sendLagMs?.p99 ?? '-'} ms, ${worst.cpuPctMean ?? '-'}% of a core on average)`,
  };
}

// Load nodes that went away (or were dropped for sending nonsense): the load was smaller
// than asked from then on, whatever the system did. Each is named with when it was lost and
// what it launched of its share, and the run's share not launched is given.
function lostNodes(phases, lost, { closed }) {
  const each = lost
    .map((n) => {
      const when = n.lostAtS !== null && n.lostAtS !== undefined ? ` at ${n.lostAtS} s` : '';
      const why = n.dropped ? ` (dropped: it sent nonsense, ${n.dropped})` : '';
      const share = n.asked ? `, having launched ${n.launched} of its ${n.asked}` : `, having launched ${n.launched}`;
      return `${n.node}${when}${share}${why}`;
    })
    .join('; ');
  const asked = closed ? 0 : phases.reduce((a, p) => a + (p.targetRate?.mean ?? 0) * p.durationS, 0);
  const launched = phases.reduce((a, p) => a + (p.launched || 0), 0);
  const notLaunched = asked > 0 ? Math.max(0, Math.round((1 - launched / asked) * 1000) / 10) : null;
  const share =
    notLaunched !== null
      ? `${notLaunched}% of the arrivals asked were not launched`
      : "that node's connections stopped sending";
  return {
    saturated: true,
    lostNodes: lost.map((n) => n.node),
    notLaunchedPct: notLaunched,
    verdict: `load node(s) lost: ${each}; ${share}, so the figures describe a smaller load than asked`,
  };
}

// A closed loop's generator under the busy mark, in words with its figure: "not busy" at 88%
// of a core would hide how near the mark it was. (No "core" in it: judgeGenerator reads that
// word as a warning that names a load node.)
function closedLoopCpu(phases, generator = {}) {
  const cpus = phases.map((p) => p.generatorCpuPctMean).filter(Number.isFinite);
  if (!cpus.length) return "the generator's CPU was not sampled";
  const threads = (generator.workers || 1) > 1 ? ` over its ${generator.workers} threads` : '';
  return `the generator's busiest phase averaged ${Math.max(...cpus)}% CPU${threads}, under the ${SATURATION.closedCpuPct}% read as busy`;
}

// Whether the machine, not the generator, was busy in phase p: the generator under its busy
// mark a thread, and the cores busy or other programs using a share of them. Returns the
// words, or null.
function busyMachine(p, { generator = {}, cores = null } = {}) {
  const threads = generator.workers || 1;
  if (p.generatorCpuPctMean != null && p.generatorCpuPctMean / threads >= SATURATION.generatorBusyPct) return null;
  if (p.machineCpuPctMean == null) return null;
  const share = cores ? p.machineCpuPctMean / (cores * 100) : null;
  const busy =
    (share !== null && share >= SATURATION.machineBusyShare) || p.othersCpuPctMean >= SATURATION.othersBusyPct;
  if (!busy) return null;
  const load = p.load1Mean != null && cores ? `, load average ${p.load1Mean} on ${cores} cores` : '';
  return `this machine was busy: its cores were ${share !== null ? `${Math.round(share * 100)}% busy` : `${p.machineCpuPctMean}% of a core busy`}, other programs than the run's using ${Math.round(p.othersCpuPctMean) / 100} of a core${load}, while the generator used ${p.generatorCpuPctMean ?? '-'}% of a core`;
}

function judgeOne(phases, status, { closed = false, generator = {}, cores = null } = {}) {
  const hottest = phases.reduce(
    (a, p) => ((p.generatorCpuPctMean ?? 0) > (a ? (a.generatorCpuPctMean ?? 0) : 0) ? p : a),
    null,
  );
  const hot = hottest && hottest.generatorCpuPctMean >= SATURATION.closedCpuPct;
  const threads = (generator.workers || 1) > 1 ? ` (${generator.workers} threads)` : '';
  if (closed) {
    return hot
      ? {
          saturated: true,
          verdict: `the load generator used ${hottest.generatorCpuPctMean}% of a core${threads}: a closed loop this busy may be what limits the rate`,
        }
      : {
          saturated: false,
          verdict: `closed loop: the rate is what the system answered; ${closedLoopCpu(phases, generator)}`,
        };
  }
  // Arrivals are counted per second and split at phase boundaries by time, so a phase of a
  // few seconds cannot be judged (at --scale 0.05 a 1 s spike read 55% of its rate while
  // the whole run launched every arrival asked).
  const judged = phases.filter((p) => p.durationS >= SATURATION.minPhaseS);
  const flagged = judged.filter((p) => launchedShort(p, phases) || lagExplains(p));
  if (status === 'completed' && flagged.length) {
    const p = flagged[0];
    const why = [
      launchedShort(p, phases) ? `launched ${p.achievedRate}/s of the ${p.targetRate.mean}/s asked` : null,
      lagExplains(p)
        ? `sent late (p99 send lag ${p.sendLagP99Ms} ms${p.responseP99Ms != null ? `, of a p99 response time of ${p.responseP99Ms} ms` : ''})`
        : null,
    ]
      .filter(Boolean)
      .join(' and ');
    // Blamed on the generator only when it is the one using the CPU.
    const machine = busyMachine(p, { generator, cores });
    if (machine) {
      return {
        saturated: true,
        cause: 'machine',
        phases: flagged.map((x) => x.name),
        verdict: `in phase "${p.name}" the load generator ${why}, and ${machine}: figures past that point describe a busy machine, not the system`,
      };
    }
    return {
      saturated: true,
      cause: 'generator',
      phases: flagged.map((x) => x.name),
      verdict: `the load generator set the limit: in phase "${p.name}" it ${why}${p.generatorCpuPctMean !== null ? ` while using ${p.generatorCpuPctMean}% of a core` : ''}; figures past that point describe the generator, not the system`,
    };
  }
  if (hot) {
    return {
      saturated: false,
      verdict: `the load generator used ${hottest.generatorCpuPctMean}% of a core in phase "${hottest.name}": it kept the asked rates, but it competes with the system for this machine's CPU`,
    };
  }
  if (judged.length < phases.length) {
    return {
      saturated: false,
      verdict: `the load generator launched ${phases.reduce((a, p) => a + p.launched, 0)} arrivals; phases under ${SATURATION.minPhaseS} s are too short to judge its rate`,
    };
  }
  if (status !== 'completed' && judged.some((p) => p.ratio !== null && p.ratio < SATURATION.minRatio)) {
    return {
      saturated: false,
      verdict: `the run ended ${status}: its phases were not all run, so whether the generator kept up is not judged`,
    };
  }
  return { saturated: false, verdict: 'the load generator kept up with every phase' };
}

module.exports = { describeGenerator, judgeGenerator, closedLoopCpu, connectionsText, launchedShort, SATURATION };
