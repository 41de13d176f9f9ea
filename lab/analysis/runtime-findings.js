'use strict';

// Why a Node service saturated, in words, from the runtime probe's figures on the node table
// (probe/preload.js, lab/probe/figures.js): each rule is stated with its thresholds, reads
// only the summary, and returns { id, text, rule } or null. Run with the other run findings
// (./run-findings.js).

// A loop busy this share of its time has no time left to take more: the work is its own
// JavaScript (or the GC, said apart below).
const BUSY = 0.7;
// A loop under this share waits: what holds the answers is outside it.
const IDLE = 0.3;
// GC over this share of a second, in the process and second where it took the most.
const GC_SECOND = 0.2;
// "Latency grew": the last quarter's median at least this many times the first's, and by at
// least GROWTH_MIN_MS.
const GROWTH = 2;
const GROWTH_MIN_MS = 10;
// Workers unevenly loaded: one worker answered more than UNEVEN times its fair share of its
// replica's requests, with at least UNEVEN_MIN requests in the replica.
const UNEVEN = 1.5;
const UNEVEN_MIN = 50;

// A process this busy (% of a core, per event loop) is not waiting on anything: its CPU is
// the answer, wherever it was spent. (A service burning CPU in a worker_threads worker, its
// main loop idle, was once said to be "waiting on a downstream, a pool, a lock" at 95%.)
const CPU_BUSY_PCT = 80;

const pct = (v) => `${Math.round(v * 100)}%`;
// A node's CPU (its process tree's, node table) per event loop the probe measured in it.
const cpuPerLoop = (r) => (r.cpuPctMean == null ? null : r.cpuPctMean / Math.max(1, r.loops || 1));
const serving = (s) => (s.nodes?.rows || []).filter((r) => r.eventLoopUtilization != null);

// The event loop busy nearly all the time: CPU-bound in JavaScript; with a profile
// (--profile), the functions it was busy in.
function loopBusy(s) {
  const busy = serving(s).filter((r) => r.eventLoopUtilization >= BUSY);
  if (!busy.length) return null;
  const list = busy.map((r) => `${r.node} ${pct(r.eventLoopUtilization)}`).join(', ');
  const gcNote = busy.some((r) => r.gcBusiestSecondPct >= GC_SECOND * 100) ? ' (part of it GC: see below)' : '';
  const one = busy.length === 1;
  const hot = busy.map((r) => hotText(s, r.node)).filter(Boolean);
  return {
    id: 'loop-busy',
    text: one
      ? `the event loop of ${busy[0].node} was busy ${pct(busy[0].eventLoopUtilization)} of the time${gcNote}: CPU-bound in JavaScript, every request waits for the one before it${hot.length ? `; ${hot[0]}` : ''}`
      : `the event loops of ${list} were busy nearly all the time${gcNote}: CPU-bound in JavaScript, every request waits for the one before it${hot.length ? `; ${hot.join('; ')}` : ''}`,
    rule: `event-loop utilization (the share of the run the loop ran code, performance.eventLoopUtilization) of ${BUSY} or more${hot.length ? `; ${HOT_RULE}` : ''}`,
  };
}

// What a node's profile says it spent its CPU in, in words: "58% of its CPU in computeDiscount
// (src/pricing.js:42), 14% in JSON.stringify", or null when nothing stands out.
const HOT_FIRST = 0.1;
const HOT_NEXT = 0.05;
const HOT_RULE = `from its CPU profile over the profile's window: functions by self time, as shares of its busy samples (idle left out), the first named at ${HOT_FIRST * 100}% or more and the next two at ${HOT_NEXT * 100}% or more`;
function hotText(s, node) {
  const top = s.profile?.nodes?.[node]?.top;
  if (!top?.length || top[0].selfShare < HOT_FIRST) return null;
  const base = s.deployment?.app?.dir;
  const where = (f) => {
    if (['program', 'GC'].includes(f.package)) return '';
    if (!f.file) return f.package === 'your code' ? '' : ` (${f.package})`;
    const file =
      base && f.file.startsWith(`${base}/`)
        ? f.file.slice(base.length + 1)
        : f.file.replace(/^.*[\\/]node_modules[\\/]/, '');
    return ` (${file}${f.line ? `:${f.line}` : ''})`;
  };
  const named = [top[0], ...top.slice(1, 3).filter((f) => f.selfShare >= HOT_NEXT)];
  return `${node} spent ${named.map((f, i) => `${pct(f.selfShare)}${i ? '' : ' of its CPU'} in ${f.name}${where(f)}`).join(', ')}`;
}

// A profiled node busy a good part of the window whose CPU went mostly to a few functions,
// where no other finding said it (a node that mostly idled says little of its hot path).
const HOT_BUSY = 0.2;
function hotFunctions(s) {
  const nodes = Object.entries(s.profile?.nodes || {}).filter(([, n]) => n.busyShare >= HOT_BUSY);
  const busy = new Set(
    serving(s)
      .filter((r) => r.eventLoopUtilization >= BUSY)
      .map((r) => r.node),
  );
  const parts = nodes
    .filter(([n]) => !busy.has(n))
    .map(([n]) => hotText(s, n))
    .filter(Boolean);
  if (!parts.length) return null;
  return {
    id: 'hot-functions',
    text: parts.join('; '),
    rule: `${HOT_RULE}; for a node busy in ${HOT_BUSY * 100}% of its samples or more`,
  };
}

// Garbage collection taking a large share of a second.
function gcHeavy(s) {
  const rows = serving(s).filter((r) => r.gcBusiestSecondPct >= GC_SECOND * 100);
  if (!rows.length) return null;
  const worst = rows.reduce((a, r) => (r.gcBusiestSecondPct > a.gcBusiestSecondPct ? r : a));
  return {
    id: 'gc-heavy',
    text: `GC took ${Math.round(worst.gcBusiestSecondPct)}% of the busiest second of ${worst.node} (${Math.round(worst.gcPauseMs)} ms over the run, its heap up to ${worst.heapUsedMiBMax} MiB): collecting garbage eats the time the requests need`,
    rule: `a process's GC time (its 'gc' performance entries) over ${pct(GC_SECOND)} of one second`,
  };
}

// The loops mostly idle while the answers slowed: the service waited on something else.
function loopWaiting(s) {
  const rows = serving(s).filter((r) => /^replica-\d+$/.test(r.node));
  const t = s.latencyTrend;
  if (!rows.length || !t || t.firstQuarterMedianMs == null || t.lastQuarterMedianMs == null) return null;
  if (rows.some((r) => r.eventLoopUtilization > IDLE || cpuPerLoop(r) >= CPU_BUSY_PCT)) return null;
  const grew =
    t.lastQuarterMedianMs >= GROWTH * t.firstQuarterMedianMs &&
    t.lastQuarterMedianMs - t.firstQuarterMedianMs >= GROWTH_MIN_MS;
  if (!grew) return null;
  const top = Math.max(...rows.map((r) => r.eventLoopUtilization));
  const stores = (s.nodes?.rows || []).filter((r) => r.store).map((r) => r.node);
  return {
    id: 'loop-waiting',
    text: `the event loop${rows.length > 1 ? 's were' : ' was'} mostly idle (${pct(top)}${rows.length > 1 ? ' at most' : ''}) while the median answer went from ${t.firstQuarterMedianMs} to ${t.lastQuarterMedianMs} ms: the service was waiting on something else (${stores.length ? `${stores.join(', ')}, ` : ''}a downstream, a pool, a lock)`,
    rule: `every replica's event-loop utilization at most ${IDLE} while the median response time of the run's last quarter was at least ${GROWTH}x its first quarter's and ${GROWTH_MIN_MS} ms more`,
  };
}

// The process busy while its event loop was not: its CPU went to work outside the main loop
// (worker_threads, a native add-on's threads), which the probe's loop figures do not see.
function cpuOffLoop(s) {
  const rows = serving(s).filter((r) => r.eventLoopUtilization <= IDLE && cpuPerLoop(r) >= CPU_BUSY_PCT);
  if (!rows.length) return null;
  const list = rows
    .map(
      (r) =>
        `${r.node} used ${Math.round(r.cpuPctMean)}% of a core while its event loop${r.loops > 1 ? 's were' : ' was'} busy ${pct(r.eventLoopUtilization)}`,
    )
    .join('; ');
  return {
    id: 'cpu-off-loop',
    text: `${list}: the CPU was spent outside the main event loop (worker_threads, a native add-on's threads), so the loop's figures do not show where; the process, not a downstream, is what was busy`,
    rule: `a node's CPU (its processes together, per event loop) at ${CPU_BUSY_PCT}% of a core or more while its event-loop utilization was at most ${IDLE}`,
  };
}

// Workers of one replica unevenly loaded: node:cluster balances connections, not requests.
function unevenWorkers(s) {
  const procs = (s.nodes?.processes || []).filter((p) => p.role === 'worker');
  const byNode = new Map();
  for (const p of procs) {
    if (!byNode.has(p.node)) byNode.set(p.node, []);
    byNode.get(p.node).push(p);
  }
  const uneven = [];
  for (const [node, ws] of byNode) {
    if (ws.length < 2) continue;
    const total = ws.reduce((a, w) => a + w.requests, 0);
    if (total < UNEVEN_MIN) continue;
    const top = ws.reduce((a, w) => (w.requests > a.requests ? w : a));
    if (top.requests > (UNEVEN * total) / ws.length) uneven.push({ node, ws, total, top });
  }
  if (!uneven.length) return null;
  const parts = uneven.map(
    ({ node, ws, total, top }) =>
      `${node}'s worker ${top.worker ?? top.pid} answered ${top.requests} of its ${total} requests (${pct(top.requests / total)}, a fair share is ${pct(1 / ws.length)})`,
  );
  return {
    id: 'uneven-workers',
    text: `${parts.join('; ')}: node:cluster hands out connections, not requests, and a balancer that keeps its connections alive sends a light load down few of them, so some workers do nearly all the work`,
    rule: `a worker answering over ${UNEVEN}x its fair share (1/workers) of its replica's requests, with ${UNEVEN_MIN} or more requests in the replica`,
  };
}

const RUNTIME_RULES = [loopBusy, hotFunctions, gcHeavy, cpuOffLoop, loopWaiting, unevenWorkers];

module.exports = { RUNTIME_RULES, BUSY, IDLE, GC_SECOND, CPU_BUSY_PCT, hotText };
