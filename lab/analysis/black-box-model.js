'use strict';

// Characterizes a request/response service from a closed-loop concurrency sweep: is it
// synchronous (W workers, each busy for the whole delay) or asynchronous (every request
// answered after the delay, however many are in flight), what W is, and what the delay is.
//
// The models, with c concurrent clients and delay d:
//   asynchronous:        latency = d,               throughput = c / d
//   synchronous, W:      latency = d for c <= W,    throughput = min(c, W) / d
//                        past W a request waits a whole service time: some take >= 2d,
//                        and by Little's law the mean is c * d / W.
// The sweep doubles c until a level saturates (or the bound is reached), then bisects
// between the last flat level and the first saturated one, so W is found exactly.

// A level is saturated when some request waited a whole extra service time. A queued
// request takes at least 2d, while noise on a busy machine is a fraction of d.
const SATURATED = 1.75;

function isSaturated(level, delayMs) {
  return level.latencyMs.max >= SATURATED * delayMs;
}

// probe(c) -> { concurrency, throughput, latencyMs: { min, mean, p95, max, ... }, errors, samples }
// burst(n) -> { count, latenciesMs, errors }: n requests sent at once (optional; see waves()).
async function sweep(probe, { maxConcurrency = 32, onLevel = () => {}, burst = null, onWave = () => {} } = {}) {
  const levels = new Map();
  const measure = async (c) => {
    if (!levels.has(c)) {
      const level = await probe(c);
      levels.set(c, level);
      onLevel(level);
    }
    return levels.get(c);
  };
  const erred = (l) => Object.values(l.errors || {}).reduce((a, b) => a + b, 0) > 0 || l.completed === 0;

  const first = await measure(1);
  if (erred(first)) return { levels: [...levels.values()], stoppedBy: 'errors at concurrency 1' };
  const delayMs = first.latencyMs.min;

  let flat = 1;
  let saturated = null;
  for (let c = 2; c <= maxConcurrency; c = Math.min(c * 2, maxConcurrency)) {
    const l = await measure(c);
    if (erred(l)) return { levels: sorted(levels), stoppedBy: `errors at concurrency ${c}` };
    if (isSaturated(l, delayMs)) {
      saturated = c;
      break;
    }
    flat = c;
    if (c === maxConcurrency) break;
  }
  if (saturated !== null) {
    // Bisect: the last flat level is W.
    let lo = flat;
    let hi = saturated;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const l = await measure(mid);
      if (erred(l)) return { levels: sorted(levels), stoppedBy: `errors at concurrency ${mid}` };
      if (isSaturated(l, delayMs)) hi = mid;
      else lo = mid;
    }
    flat = lo;
    saturated = hi;
    // One more level past saturation shows the plateau for Little's law.
    if (saturated * 2 <= maxConcurrency) await measure(saturated * 2);
  }
  const waves =
    saturated !== null && burst ? await countWaves(burst, saturated, delayMs, maxConcurrency, onWave, flat) : [];
  return { levels: sorted(levels), lastFlat: flat, firstSaturated: saturated, maxConcurrency, waves };
}

// The first wave of a burst: the requests served at once, answering before 1.5 delays (a
// request that waited for a worker takes two). Why bursts: in a closed loop on a busy
// machine the clients drift out of step, so a waiting request waits less than a whole delay
// and latency rises late (seen: 16 read for 14 workers), while the plateau's throughput
// reads low by every hand-off between requests (seen: 10 for 11). A burst's first wave
// needs neither.
//
// The first burst is comfortably larger than the workers the sweep suggests; one answered
// wholly in its first wave was too small and is doubled. Then three bursts of n, 2n and n:
// W workers answer W of any burst larger than W at once, so the first wave stays put when
// the burst doubles, while an asynchronous service answers the whole burst at once and only
// a stalled machine makes some of it late (seen in CI: a 210 ms asynchronous box read as
// "sync" because a burst had late answers). The doubled burst tells the two apart.
const FIRST_WAVE = 1.5;
// When the largest first wave is still under the closed loop's last flat level, the bursts may
// all have lost an answer to a stall (noise only makes a first-wave answer late): up to this
// many more bursts of n are sent, each about two delays long, and the largest reading stands.
// (Seen in CI, with the longest test files started first beside it: three bursts each read 9
// of a box's 10 workers.) A closed loop that over-reads (16 for 14) only costs these bursts.
const MORE_BURSTS = 3;

async function countWaves(burst, firstSaturated, delayMs, maxConcurrency, onWave, lastFlat = 0) {
  let n = Math.max(2 * firstSaturated, firstSaturated + 4);
  const waves = [];
  const send = async (size) => {
    const b = await burst(size);
    const first = b.latenciesMs.filter((ms) => ms < FIRST_WAVE * delayMs).length;
    const wave = { size, firstWave: first, errors: b.errors };
    onWave(wave);
    return wave;
  };
  const failed = (w) => Object.keys(w.errors || {}).length > 0;
  for (;;) {
    const w = await send(n);
    if (failed(w)) return waves;
    if (w.firstWave >= n && n < 4 * maxConcurrency) {
      n *= 2;
      continue;
    }
    waves.push(w);
    break;
  }
  for (const size of [2 * n, n]) {
    const w = await send(size);
    if (failed(w)) return waves;
    waves.push(w);
  }
  const largest = () => Math.max(...waves.map((w) => w.firstWave));
  // (Not when the doubled burst grew: an asynchronous service, whose waves are not workers.)
  for (let i = 0; i < MORE_BURSTS && largest() < lastFlat && !firstWaveGrew(waves); i++) {
    const w = await send(n);
    if (failed(w)) return waves;
    waves.push(w);
  }
  return waves;
}

// Did the first wave grow with the burst? Doubling a burst adds n requests; an asynchronous
// service answers them at once, W synchronous workers answer none of them. Half of them
// (and more than the larger wave of the two small bursts) is the line: noise only ever
// makes a first-wave answer late, never a waiting one early, so a synchronous service's
// doubled burst cannot pass it unless both small bursts lost half of theirs.
function firstWaveGrew(waves) {
  const small = waves.filter((w) => w.size === waves[0].size);
  const big = waves.find((w) => w.size === 2 * waves[0].size);
  if (!big) return null;
  const smallMax = Math.max(...small.map((w) => w.firstWave));
  return big.firstWave >= smallMax + waves[0].size / 2 ? { small, big } : null;
}

const sorted = (levels) => [...levels.values()].sort((a, b) => a.concurrency - b.concurrency);

const r1 = (v) => Math.round(v * 10) / 10;

// The verdict from a finished sweep: kind, W, delay, the uncertainty of each, and why.
function analyze(result) {
  const { levels } = result;
  if (result.stoppedBy) {
    return { kind: 'inconclusive', explanation: `The sweep stopped early: ${result.stoppedBy}.`, levels };
  }
  const delayFrom = levels[0].latencyMs.min;
  const flatLevels = levels.filter((l) => !isSaturated(l, delayFrom));
  // The delay: the low end of every latency measured without queueing. Queueing, the
  // network and a busy machine only ever add to a request's time, so the minimum is the
  // best estimate; the spread of the flat levels' medians bounds it.
  const mins = flatLevels.map((l) => l.latencyMs.min);
  const medians = flatLevels.map((l) => l.latencyMs.p50);
  const delayMs = Math.min(...mins);
  const delayUncertaintyMs = Math.max(1, Math.max(...medians) - delayMs);

  const asynchronous = (why) => {
    const top = levels[levels.length - 1];
    return {
      kind: 'async',
      delayMs: r1(delayMs),
      delayUncertaintyMs: r1(delayUncertaintyMs),
      workers: null,
      explanation:
        `Asynchronous: ${why} ` +
        `while throughput grew to ${r1(top.throughput)}/s (${top.concurrency} / ${fmtS(delayMs)} = ${r1(top.concurrency / (delayMs / 1000))}/s). ` +
        `A synchronous service with more than ${top.concurrency} workers would look the same up to here.`,
      levels,
    };
  };
  if (result.firstSaturated === null || result.firstSaturated === undefined) {
    return asynchronous(
      `latency stayed at ${fmtS(delayMs)} from 1 to ${levels[levels.length - 1].concurrency} concurrent requests`,
    );
  }
  // The closed loop saw latency rise, but every burst, up to the largest sent, was answered
  // in its first wave: no worker limit held any request back, so the rise was the machine
  // (a busy one delays a closed loop's clients), not a synchronous service's workers.
  const bursts = result.waves || [];
  if (bursts.length && bursts.every((w) => w.firstWave >= w.size)) {
    return asynchronous(
      `all ${bursts.map((w) => w.size).join(', ')} requests sent at once answered after one delay (${fmtS(delayMs)}), although latency rose in the closed loop from ${result.firstSaturated} concurrent requests (a busy machine)`,
    );
  }
  const grew = firstWaveGrew(bursts);
  if (grew) {
    return asynchronous(
      `of ${grew.small.map((w) => w.size).join(' and ')} requests sent at once ${grew.small.map((w) => w.firstWave).join(' and ')} answered after one delay (${fmtS(delayMs)}), ` +
        `and of ${grew.big.size} sent at once, ${grew.big.firstWave}: the first wave grew with the burst, so no worker limit held requests back ` +
        `(the late answers, and latency rising in the closed loop from ${result.firstSaturated} concurrent requests, were a busy machine),`,
    );
  }

  const past = levels.filter((l) => l.concurrency >= result.firstSaturated);
  // Little's law at the saturated levels: throughput x delay = workers busy.
  // The time a request holds a worker: the flat levels' median latency (the minimum would
  // leave out what every request adds on a busy machine, and Little's W would read low).
  const holdMs = medianOf(flatLevels.map((l) => l.latencyMs.p50).filter((v) => typeof v === 'number')) ?? delayMs;
  const littles = past.map((l) => (l.throughput * holdMs) / 1000);
  const littleW = littles.reduce((a, b) => a + b, 0) / littles.length;
  // Where latency began to rise says W when every client waits in step with the others. On
  // a busy machine the clients drift apart and a waiting request waits less than a whole
  // delay, so the rise shows late (seen: 16 found for 14 workers with the test suite
  // running beside it), while the plateau's throughput still says 14 by Little's law. When
  // the two disagree, the throughput (an average over every request of the plateau, where
  // the rise is one request's wait) is taken, and both are said.
  const byLittle = Math.round(littleW);
  const sat = levels.find((l) => l.concurrency === result.firstSaturated);
  const waves = (result.waves || []).map((w) => w.firstWave);
  // A first wave of none is not a reading of the workers (a live service answers at least
  // one of a burst first): the delay is too short for a burst to be told apart from the
  // connections' own set-up (a 2 ms service read "0 workers"), and the sweep's figures speak.
  if (waves.length && Math.max(...waves) > 0) {
    // The bursts' first waves count the workers directly. Noise only makes a first-wave
    // answer late (a waiting one takes two delays, never under 1.5), so a wave reads W or
    // less: the largest is the verdict, and the other two readings are said beside it.
    const W = Math.max(...waves);
    const spread = Math.max(...waves) - Math.min(...waves);
    return {
      kind: 'sync',
      workers: W,
      workersUncertainty: spread,
      waves,
      latencyWorkers: result.lastFlat,
      littleWorkers: r1(littleW),
      delayMs: r1(delayMs),
      delayUncertaintyMs: r1(delayUncertaintyMs),
      explanation:
        `Synchronous with ${W} workers: of ${result.waves.map((w) => w.size).join(', ')} requests sent at once, ${waves.join(', ')} answered ` +
        `after one delay (${fmtS(delayMs)}) and the rest waited for a worker. Latency in the closed loop stayed flat up to ` +
        `${result.lastFlat} concurrent requests, and throughput levelled at ${r1(sat.throughput)}/s, by Little's law ` +
        `${r1(sat.throughput)}/s x ${fmtS(holdMs)} = ${r1(littleW)} workers busy.`,
      levels,
    };
  }
  const disagree = byLittle !== result.lastFlat && byLittle >= 1;
  const W = disagree ? byLittle : result.lastFlat;
  return {
    kind: 'sync',
    workers: W,
    workersUncertainty: disagree ? Math.abs(byLittle - result.lastFlat) : 0,
    latencyWorkers: result.lastFlat,
    littleWorkers: r1(littleW),
    delayMs: r1(delayMs),
    delayUncertaintyMs: r1(delayUncertaintyMs),
    explanation: disagree
      ? `Synchronous with ${W} workers: throughput levelled at ${r1(sat.throughput)}/s, and by Little's law ${r1(sat.throughput)}/s x ${fmtS(delayMs)} = ${r1(littleW)} workers busy; ` +
        `latency only rose past ${result.lastFlat} concurrent requests (clients out of step on a busy machine), so W is uncertain by ${Math.abs(byLittle - result.lastFlat)}.`
      : `Synchronous with ${W} workers: latency stayed at ${fmtS(delayMs)} up to ${W} concurrent requests and ` +
        `reached ${fmtS(sat.latencyMs.max)} at ${W + 1}, when one request had to wait for a worker; ` +
        `throughput levelled at ${r1(sat.throughput)}/s, and by Little's law ${r1(sat.throughput)}/s x ${fmtS(delayMs)} = ${r1(littleW)} workers busy.`,
    levels,
  };
}

function medianOf(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function fmtS(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

// The model curves for a verdict, for drawing: [{ c, latencyMs, throughput }].
function modelCurve(verdict, maxC) {
  if (verdict.kind !== 'sync' && verdict.kind !== 'async') return [];
  const d = verdict.delayMs;
  const pts = [];
  for (let c = 1; c <= maxC; c++) {
    if (verdict.kind === 'async') pts.push({ c, latencyMs: d, throughput: (c * 1000) / d });
    else
      pts.push({
        c,
        latencyMs: Math.max(d, (c * d) / verdict.workers),
        throughput: (Math.min(c, verdict.workers) * 1000) / d,
      });
  }
  return pts;
}

module.exports = { sweep, analyze, modelCurve, isSaturated, SATURATED };
