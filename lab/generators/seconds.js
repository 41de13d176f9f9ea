'use strict';

const { create, encode } = require('../measure/histogram');

// What one worker of the lab's engines (./fast-worker.js) counts, second by second of the
// run (from t0), and the 'second' message it posts for each: requests launched and
// completed, codes and errors, latency histograms (from the due time, from the send, the
// send's lag, the upstream's own time), which replica answered, virtual users, and the same
// by request name when the model has several (byName).
const add = (obj, key) => (obj[key] = (obj[key] || 0) + 1);

class Seconds {
  constructor({ t0, byName, countVus }) {
    this.t0 = t0;
    this.byName = byName;
    this.countVus = countVus;
    this.held = new Map();
    // The first second not posted yet.
    this.next = 0;
  }

  // The second a clock time falls in, made when new.
  at(at) {
    // A timer firing a little early for the first arrival must not open a second before t0;
    // and nothing is counted into a second already sent on (a timer a busy machine fired over
    // a second late, an arrival counted at its due time: it was lost, 107 of 110 counted).
    const sec = Math.max(this.next, Math.floor((at - this.t0) / 1000));
    let b = this.held.get(sec);
    if (!b) {
      b = {
        sec,
        launched: 0,
        completed: 0,
        arrivals: 0,
        vusCompleted: 0,
        vusFailed: 0,
        skipped: 0,
        codes: {},
        errors: {},
        // Which replica answered, and its time to answer, as the entry said (X-Lab-Upstream).
        upstreams: {},
        latency: create(),
        fromSend: create(),
        lag: create(),
        upstream: create(),
        requests: this.byName ? {} : null,
      };
      this.held.set(sec, b);
    }
    return b;
  }

  // A request name's figures in a second.
  named(b, name) {
    let n = b.requests[name];
    if (!n) n = b.requests[name] = { launched: 0, completed: 0, codes: {}, errors: {}, latency: create() };
    return n;
  }

  // A new TLS connection (--tls): its connect and handshake times, whether it resumed a
  // session, the protocol ALPN chose (./tls-client.js). Kept only by runs that have them.
  handshake(at, info) {
    const b = this.at(at);
    const t = (b.tls ??= {
      handshakes: 0,
      offered: 0,
      resumed: 0,
      protocols: {},
      connect: create(),
      handshake: create(),
    });
    t.handshakes += 1;
    if (info.offered) t.offered += 1;
    if (info.resumed) t.resumed += 1;
    add(t.protocols, info.protocol);
    t.connect.recordValue(Math.max(1, Math.round(info.connectMs * 1000)));
    t.handshake.recordValue(Math.max(1, Math.round(info.handshakeMs * 1000)));
  }

  // A request's time to its answer's first byte, from its send (TLS runs).
  firstByte(b, ms) {
    (b.ttfb ??= create()).recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  failure(b, step, code) {
    add(b.errors, code);
    if (this.byName) add(this.named(b, step.name).errors, code);
  }

  // Posts every second that is over by `now` (all: and every second held), empty ones too,
  // so the coordinator can merge a second as soon as every worker has posted it. pending:
  // the requests in flight.
  flush(now, all, pending, post) {
    const current = Math.floor((now - this.t0) / 1000);
    const last = all ? Math.max(current, ...this.held.keys()) : current - 1;
    for (; this.next <= last; this.next++) {
      const sec = this.next;
      const b = this.held.get(sec) || this.at(this.t0 + sec * 1000);
      this.held.delete(sec);
      post(message(b, pending, this.countVus));
    }
  }
}

function message(b, pending, countVus) {
  return {
    type: 'second',
    sec: b.sec,
    launched: b.launched,
    completed: b.completed,
    ...(countVus ? { arrivals: b.arrivals, vusCompleted: b.vusCompleted, vusFailed: b.vusFailed } : {}),
    ...(b.skipped ? { vusSkipped: b.skipped } : {}),
    ...(b.expect ? { expect: b.expect } : {}),
    ...(b.custom ? { custom: b.custom } : {}),
    codes: b.codes,
    errors: b.errors,
    pending,
    upstreams: b.upstreams,
    ...(b.upstreamFails ? { upstreamFails: b.upstreamFails } : {}),
    latency: encode(b.latency),
    fromSend: encode(b.fromSend),
    lag: encode(b.lag),
    upstream: encode(b.upstream),
    ...(b.requests ? { requests: encodeNamed(b.requests) } : {}),
    ...(b.tls
      ? {
          tls: {
            handshakes: b.tls.handshakes,
            offered: b.tls.offered,
            resumed: b.tls.resumed,
            protocols: b.tls.protocols,
          },
          connect: encode(b.tls.connect),
          handshake: encode(b.tls.handshake),
        }
      : {}),
    ...(b.ttfb ? { ttfb: encode(b.ttfb) } : {}),
  };
}

// Each name's figures of one second, its histogram encoded as the totals' are.
function encodeNamed(requests) {
  const out = {};
  for (const [name, n] of Object.entries(requests)) {
    out[name] = {
      launched: n.launched,
      completed: n.completed,
      codes: n.codes,
      errors: n.errors,
      latency: encode(n.latency),
    };
  }
  return out;
}

module.exports = { Seconds, add };
