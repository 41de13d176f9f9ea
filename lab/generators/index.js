'use strict';

const { startArtillery } = require('./artillery');
const { startOwn, forkEngine } = require('./fast');

// The load generators, one interface: start(plan, { dir, onRecord }) returns { pid, workers,
// done: Promise<{ records, status }>, stop() }, and every engine emits the neutral records of
// lab/generators/records.js.
//   artillery - Artillery 2 (the course's tool): open loop, one new connection per arrival,
//               whole-millisecond latencies from its sketch; costly in CPU (~5.7 ms a request).
//   fast      - the lab's open loop: the same phases, µs HdrHistograms timed from each
//               arrival's due time, worker threads when one cannot keep up.
//   closed    - the lab's closed loop: N connections, each sending when answered.
//   signal    - the lab's WebSocket participants (signal-process.js): stages of concurrent
//               participants joining rooms and relaying through /signal.
// A loopback destination gives one source address about 28,000 ephemeral ports
// (net.ipv4.ip_local_port_range): participants beyond that take 127.0.0.2, .3, ... as theirs
// (all of 127/8 is the loopback interface on Linux).
const PORTS_PER_ADDRESS = 25000;
function sourceAddresses(plan) {
  const host = new URL(plan.target).hostname;
  const peak = Math.max(0, ...plan.stages.map((st) => st.target));
  if (!/^127\.0\.0\.1$/.test(host) || peak <= PORTS_PER_ADDRESS) return null;
  return Array.from({ length: Math.ceil(peak / PORTS_PER_ADDRESS) }, (_, i) => `127.0.0.${i + 1}`);
}

const GENERATORS = {
  artillery: { start: startArtillery, loop: 'open', what: "Artillery 2, the course's tool" },
  fast: { start: (plan, o) => startOwn({ ...plan, mode: 'open' }, o), loop: 'open', what: "the lab's open loop" },
  closed: {
    start: (plan, o) => startOwn({ ...plan, mode: 'closed' }, o),
    loop: 'closed',
    what: "the lab's closed loop",
  },
  signal: {
    start: (plan, o) => forkEngine('signal-process.js', { ...plan, sourceAddresses: sourceAddresses(plan) }, o),
    // A closed population: each participant sends when the protocol (or its update timer) says.
    loop: 'closed',
    what: "the lab's WebSocket signaling participants",
  },
};

module.exports = { GENERATORS, sourceAddresses };
