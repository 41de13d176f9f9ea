'use strict';

// What the coordinator (./distributed.js) accepts from a load node, checked before anything
// uses it: each message's fields (types and ranges) and its place in the conversation
// (hello, pongs, then records, CPU and one end, only after the start). The token only says a
// node is one of the run's; what it sends may still be nonsense (a clock offset of NaN, a
// billion arrivals in a second, a record before the start), and once such figures were
// merged, or crashed the lab. A message that fails is the node's fault: the node is dropped
// and named, and the run fails.
const { decode } = require('../measure/histogram');

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v, max) => Number.isInteger(v) && v >= 0 && v <= max;
const isFiniteIn = (v, min, max) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;

// Bounds no honest node comes near: one machine's generator sends ~2,000 arrivals a second a
// core (lab/generators/fast.js), and a node's clock is within seconds of the lab's.
const LIMITS = Object.freeze({
  perSecond: 1e6,
  offsetMs: 24 * 3600 * 1000,
  pending: 1e7,
  codeKeys: 64,
  histogramChars: 1 << 20,
  rssMiB: 1 << 20,
  nodeName: 128,
});

const fail = (why) => {
  throw Object.assign(new Error(why), { nonsense: true });
};

// The first line: { op: 'hello', token, node, task, cores }; the token is compared by the
// caller. Returns the node's identity.
function checkHello(m) {
  if (!isObject(m) || m.op !== 'hello' || typeof m.token !== 'string') return null;
  const node = m.node === undefined ? '?' : m.node;
  if (typeof node !== 'string' || !node.length || node.length > LIMITS.nodeName) return null;
  if (m.task !== undefined && (typeof m.task !== 'string' || m.task.length > LIMITS.nodeName)) return null;
  if (m.cores !== undefined && !isCount(m.cores, 4096)) return null;
  return { node, task: m.task || '', cores: Math.max(1, m.cores || 1) };
}

// A { name: count } map (codes, errors): its sum.
function countsOf(obj, what) {
  if (obj === undefined) return 0;
  if (!isObject(obj)) fail(`${what} is not an object`);
  const keys = Object.keys(obj);
  if (keys.length > LIMITS.codeKeys) fail(`${what} has ${keys.length} keys`);
  let sum = 0;
  for (const k of keys) {
    if (k.length > 64) fail(`${what} has a key of ${k.length} characters`);
    if (!isCount(obj[k], LIMITS.perSecond)) fail(`${what}.${k} is ${JSON.stringify(obj[k])}`);
    sum += obj[k];
  }
  return sum;
}

// An encoded histogram (or null): how many values it holds.
function histogramCount(text, what) {
  if (text === null || text === undefined) return 0;
  if (typeof text !== 'string' || text.length > LIMITS.histogramChars) fail(`${what} is not an encoded histogram`);
  try {
    return decode(text).totalCount;
  } catch {
    return fail(`${what} does not decode`);
  }
}

// One second a node measured; `seen` holds its running totals and `bound` the most arrivals
// (or requests) the plan can launch in all.
function checkSecond(r, seen, bound) {
  if (!isFiniteIn(r.at, 0, 8.64e15)) fail(`a second's "at" is ${JSON.stringify(r.at)}`);
  for (const k of ['launched', 'completed']) {
    if (!isCount(r[k], LIMITS.perSecond)) fail(`${k} is ${JSON.stringify(r[k])} in one second`);
  }
  if (r.pending !== undefined && !isCount(r.pending, LIMITS.pending)) fail(`pending is ${JSON.stringify(r.pending)}`);
  const codes = countsOf(r.codes, 'codes');
  countsOf(r.errors, 'errors');
  if (codes > r.completed) fail(`${codes} codes for ${r.completed} answers`);
  const hist = r.hist === undefined || r.hist === null ? {} : r.hist;
  if (!isObject(hist)) fail('hist is not an object');
  // The engine records one latency per answer and one send lag per launch.
  if (histogramCount(hist.latency, 'hist.latency') !== r.completed && hist.latency)
    fail(`a latency histogram of other than its ${r.completed} answers`);
  if (histogramCount(hist.lag, 'hist.lag') !== r.launched && hist.lag)
    fail(`a send-lag histogram of other than its ${r.launched} launches`);
  histogramCount(hist.fromSend, 'hist.fromSend');
  // Virtual users: a flow of several requests launches more requests than arrivals.
  for (const k of ['arrivals', 'vusCompleted', 'vusFailed']) {
    if (r[k] !== undefined && !isCount(r[k], LIMITS.perSecond)) fail(`${k} is ${JSON.stringify(r[k])} in one second`);
  }
  if (r.requests !== undefined && r.requests !== null) checkNamed(r.requests);
  seen.launched += r.launched;
  seen.completed += r.completed;
  seen.arrivals += r.arrivals ?? r.launched;
  if (seen.arrivals > bound) fail(`${seen.arrivals} launched, more than the ${bound} the plan asks`);
  if (seen.completed > seen.launched) fail(`${seen.completed} answers for ${seen.launched} launched`);
}

// A second's figures by request name: counts, codes, errors and each name's histogram.
function checkNamed(requests) {
  if (!isObject(requests)) fail('requests is not an object');
  const names = Object.keys(requests);
  if (names.length > 256) fail(`${names.length} request names in one second`);
  for (const name of names) {
    const n = requests[name];
    if (!isObject(n) || name.length > 512) fail('a request name that is not one');
    for (const k of ['launched', 'completed'])
      if (!isCount(n[k], LIMITS.perSecond)) fail(`requests.${k} is ${JSON.stringify(n[k])}`);
    countsOf(n.codes, 'requests.codes');
    countsOf(n.errors, 'requests.errors');
    if (n.hist !== undefined && !isObject(n.hist)) fail('requests.hist is not an object');
    if (histogramCount(n.hist?.latency, 'requests.hist.latency') > n.completed)
      fail('a request latency histogram larger than its answers');
  }
}

// A message after the hello. `peer`: { hello: { cores }, t0 (null before the start), ended, seen };
// `run`: { bound, startedAt (the lab's clock at the start, ms), now }. Returns the message,
// or throws an error marked `nonsense` saying what is wrong.
function checkMessage(m, peer, run) {
  const cores = peer.hello?.cores ?? 1;
  if (!isObject(m)) fail('a line that is not an object');
  if (peer.ended) fail(`"${m.op}" after its end`);
  switch (m.op) {
    case 'pong':
      if (!Number.isInteger(m.id)) fail('a pong without its ping id');
      if (!isFiniteIn(m.at, 0, 8.64e15)) fail(`a clock reading of ${JSON.stringify(m.at)}`);
      if (Math.abs(m.at - run.now) > LIMITS.offsetMs) fail(`a clock ${Math.round((m.at - run.now) / 1000)} s off`);
      return m;
    case 'record': {
      if (peer.t0 === null) fail('a record before the start');
      const r = m.record;
      if (!isObject(r)) fail('a record that is not an object');
      if (r.type === 'second') checkSecond(r, peer.seen, run.bound);
      else if (r.type === 'done') {
        const elapsedS = Math.max(0, (run.now - run.startedAt) / 1000) + 60;
        const most = elapsedS * cores * 2;
        if (!isFiniteIn(r.cpuS, 0, most)) fail(`a CPU total of ${JSON.stringify(r.cpuS)} s`);
        if (r.startupCpuS !== undefined && !isFiniteIn(r.startupCpuS, 0, most))
          fail(`a start-up CPU of ${JSON.stringify(r.startupCpuS)} s`);
      } else if (r.type !== 'start' && r.type !== 'phase') fail(`a record of type ${JSON.stringify(r.type)}`);
      return m;
    }
    case 'cpu':
      if (peer.t0 === null) fail('a CPU reading before the start');
      if (!isFiniteIn(m.cpuPct, 0, 200 * cores)) fail(`a CPU reading of ${JSON.stringify(m.cpuPct)}%`);
      if (!isFiniteIn(m.rssMiB, 0, LIMITS.rssMiB)) fail(`a memory reading of ${JSON.stringify(m.rssMiB)} MiB`);
      return m;
    case 'end':
      if (peer.t0 === null) fail('an end before the start');
      return m;
    default:
      return fail(`an unknown op ${JSON.stringify(m.op)?.slice(0, 40)}`);
  }
}

module.exports = { checkHello, checkMessage, LIMITS };
