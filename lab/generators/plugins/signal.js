'use strict';

const { defineGenerator } = require('../plugin');
const { forkEngine } = require('../own-process');

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

// The lab's WebSocket signaling participants (seed 002): stages of concurrent participants
// joining rooms and relaying through /signal (lab/generators/signal-process.js). It drives
// the signal endpoint, and only it.
module.exports = defineGenerator({
  name: 'signal',
  order: 3,
  what: "the lab's WebSocket signaling participants (the signal endpoint's)",
  // A closed population: each participant sends when the protocol (or its update timer) says.
  loop: 'closed',
  drives: 'participants',
  precision: "microseconds, HdrHistogram: connect times, and relays from the sender's stamp",
  plan: (model, ctx) => ({ target: ctx.target, ...ctx.signal }),
  start: (plan, o) => forkEngine('signal-process.js', { ...plan, sourceAddresses: sourceAddresses(plan) }, o),
  sourceAddresses,
});
