'use strict';

const tls = require('node:tls');

// How the lab's engines open a TLS connection (--tls): checked against the CA of the
// deployment (the lab's own, given in the plan), never with verification turned off unless the
// script or the user said so (config.tls.rejectUnauthorized: false, --insecure); resuming the
// session the last handshake to the same origin left, as clients do by default (--tls-resume
// off: a full handshake every time). What each new connection cost is reported: the time to
// connect (TCP), to finish the handshake, whether it resumed, and the protocol ALPN chose.
//   o: { ca (PEM), insecure, resume, alpn: ['h2'] | ['http/1.1'] }
function tlsClient(o = {}) {
  const sessions = new Map();
  const base = {
    ...(o.ca ? { ca: o.ca } : {}),
    rejectUnauthorized: !o.insecure,
    ALPNProtocols: o.alpn || ['http/1.1'],
  };
  return {
    // A TLS socket to url; onReady({ connectMs, handshakeMs, offered, resumed, protocol }) once its
    // handshake is done. `extra`: more of tls.connect's options (onread).
    connect(url, onReady = null, extra = {}) {
      const origin = url.origin;
      const started = performance.now();
      // Whether this connection had a session to offer: a connection resumes only with a
      // ticket an earlier one received, so connections opened before the first ticket came
      // (a slow first handshake on a busy machine) cannot; the share is judged over these.
      const offered = o.resume !== false && sessions.has(origin);
      let connected = null;
      const socket = tls.connect({
        ...base,
        ...extra,
        host: url.hostname,
        port: Number(url.port) || 443,
        servername: isIp(url.hostname) ? undefined : url.hostname,
        ...(offered ? { session: sessions.get(origin) } : {}),
      });
      // (No Nagle: a small request then a wait for an ACK the server delays held HTTP/2's
      // answers ~200 ms behind nginx.)
      socket.setNoDelay(true);
      socket.once('connect', () => (connected = performance.now()));
      if (o.resume !== false) socket.on('session', (s) => sessions.set(origin, s));
      socket.once('secureConnect', () => {
        const now = performance.now();
        if (onReady)
          onReady({
            connectMs: (connected ?? now) - started,
            handshakeMs: now - (connected ?? started),
            offered,
            resumed: socket.isSessionReused(),
            protocol: socket.alpnProtocol || 'http/1.1',
          });
      });
      return socket;
    },
  };
}

const isIp = (host) => /^[\d.]+$/.test(host) || host.includes(':');

module.exports = { tlsClient };
