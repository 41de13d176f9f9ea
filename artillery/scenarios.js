'use strict';

// The course's scenarios as one table: endpoint x scenario -> parameters. Every Artillery
// script the lab runs is generated from here (artillery/script.js); nothing is copied per
// case. Rates are new virtual users per second, each sending one request on its own
// connection, as in the course's Artillery runs. Durations are seconds.
const ENDPOINTS = {
  ping: { path: '/ping', what: 'constant answer' },
  heavy: { path: '/heavy', what: 'CPU-bound, blocks its process for 5 s' },
  bbox1: { path: '/bbox1', what: 'call to black box 1' },
  bbox2: { path: '/bbox2', what: 'call to black box 2' },
  // Cacheable objects for the cdn deployment: 1,000 objects of 10 KiB with a Zipf popularity
  // (artillery/objects.js), each request one of them.
  asset: {
    path: '/asset/',
    what: 'cacheable objects (1,000 x 10 KiB, Zipf popularity)',
    objects: { count: 1000, exponent: 1, bytes: 10240 },
  },
  // An answer after 200 ms without CPU (seed 001's backend): what a balancer adds shows
  // against a fixed service time.
  sleep: { path: '/sleep?ms=200', what: 'an answer after 200 ms, no CPU (seed 001)' },
  // A fixed amount of CPU work (100 rounds, 3-5 ms of one core here): a CPU-capped server
  // answers it slower (seed 004).
  work: { path: '/work?n=100', what: 'a fixed amount of CPU work (seed 004)' },
  // WebSocket signaling (seed 002): concurrent participants, not arrivals; its stages are
  // SIGNAL below, and only the lab's `signal` engine drives it.
  signal: { path: '/signal', what: 'WebSocket signaling participants (seed 002)', participants: true },
};

// The signal endpoint's scenarios: stages of concurrent participants, each moving linearly
// to its target as k6's ramping VUs do. `load` is seed 002's own. Participants share rooms of
// roomSize, exchange offer, answer and `candidates` ICE candidates with each peer, then send an
// update every updateEveryS.
const SIGNAL = {
  participant: { roomSize: 4, candidates: 2, updateEveryS: 10 },
  load: [
    { duration: 10, target: 10 },
    { duration: 30, target: 50 },
    { duration: 60, target: 250 },
    { duration: 120, target: 500 },
    { duration: 240, target: 1000 },
  ],
  // 100 participants with two surges to 1,000, held 15 s each.
  spikes: [
    { duration: 30, target: 100 },
    { duration: 15, target: 100 },
    { duration: 5, target: 1000 },
    { duration: 15, target: 1000 },
    { duration: 5, target: 100 },
    { duration: 45, target: 100 },
    { duration: 5, target: 1000 },
    { duration: 15, target: 1000 },
    { duration: 5, target: 100 },
    { duration: 45, target: 100 },
  ],
  // 1,000 participants reached in a minute, then held (--duration sets the hold).
  endurance: [
    { duration: 60, target: 1000 },
    { duration: 600, target: 1000, hold: true },
  ],
};

const SCENARIOS = {
  // 1.2.1: arrivals ramp linearly from 0 to a peak in 120 s (peaks from each endpoint's section).
  load: {
    shape: 'ramp',
    durationS: 120,
    params: {
      ping: { peak: 1000 },
      heavy: { peak: 20 },
      bbox1: { peak: 1000 },
      bbox2: { peak: 30 },
      asset: { peak: 1000 },
      sleep: { peak: 1000 },
      work: { peak: 200 },
      // A path of your own service (an endpoint word that starts with /): a ramp to 100/s.
      path: { peak: 100 },
    },
  },
  // 1.2.2: a base rate with two spikes of 15 s, 45 s apart (base 45 s, spike, base 45 s,
  // spike, base 45 s: the report's bbox1 run launched 100*135 + 1000*30 = 43,500).
  // Chosen here (the report had no spikes for them):
  //  - ping: as bbox1 (100/s, spikes of 1000/s), so the pair isolates the endpoint's cost;
  //  - heavy: 1/s, spikes of 4/s. 1/s is what only multi-replicated (9 workers, 1.8/s at
  //    5 s each) keeps up with in the report's endurance run; the spikes show which
  //    deployments recover and which never drain their queue.
  spikes: {
    shape: 'spikes',
    baseS: 45,
    spikeS: 15,
    spikes: 2,
    params: {
      ping: { base: 100, spike: 1000 },
      heavy: { base: 1, spike: 4 },
      bbox1: { base: 100, spike: 1000 },
      bbox2: { base: 1, spike: 4 },
      asset: { base: 100, spike: 1000 },
      sleep: { base: 100, spike: 1000 },
      work: { base: 20, spike: 200 },
      path: { base: 10, spike: 100 },
    },
  },
  // 1.2.3: a constant rate held for long (the report: 3 min; the lab's default is 10 min).
  // heavy 1/s, bbox1 200/s, bbox2 2/s are the report's; ping 200/s is chosen to match bbox1.
  endurance: {
    shape: 'constant',
    durationS: 600,
    // --duration sets this scenario's length; the others refuse it (their phases are fixed).
    usesDuration: true,
    params: {
      ping: { rate: 200 },
      heavy: { rate: 1 },
      bbox1: { rate: 200 },
      bbox2: { rate: 2 },
      asset: { rate: 200 },
      sleep: { rate: 200 },
      work: { rate: 20 },
      path: { rate: 20 },
    },
  },
};

// An endpoint word: one of the lab's (ENDPOINTS) or a path of your own service, which starts
// with / (GET /api/items, or whatever --method says), with the scenarios' `path` rates.
const isPath = (word) => typeof word === 'string' && word.startsWith('/');
function endpointOf(word) {
  if (isPath(word)) return { path: word, what: `your path ${word}`, yours: true };
  return ENDPOINTS[word];
}
// An endpoint's path with some of its query's values changed (--work-n: /work's rounds).
function pathOf(endpoint, query = null) {
  const { path: full } = endpointOf(endpoint);
  if (!query) return full;
  const [base, qs] = full.split('?');
  const params = new URLSearchParams(qs || '');
  for (const [k, v] of Object.entries(query)) params.set(k, String(v));
  return `${base}?${params}`;
}

// A scenario's rates for an endpoint word.
const paramsOf = (scenario, word) => scenario.params[isPath(word) ? 'path' : word];

// Client-side time-out per request, as in the report's runs; each one counts as an error.
const REQUEST_TIMEOUT_S = 10;

module.exports = { ENDPOINTS, SCENARIOS, SIGNAL, REQUEST_TIMEOUT_S, endpointOf, paramsOf, isPath, pathOf };
