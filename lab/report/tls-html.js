'use strict';

const { html, table } = require('./html');

// A TLS run's section of its report (--tls): the protocol ALPN chose, the new connections and
// the share that resumed a session, the set-up times (connect, handshake) and the time to an
// answer's first byte, each as percentiles of one histogram, and the entry's CPU for them.
function tlsSection(s) {
  const t = s.tls;
  if (!t) return '';
  const row = (name, x) => [name, x?.count ?? '-', x?.p50 ?? '-', x?.p90 ?? '-', x?.p99 ?? '-', x?.max ?? '-'];
  return html`<h2>TLS</h2>
    <p>
      ${t.protocol}; ${t.handshakes} new connection(s), ${t.resumedShare === null ? '-' : `${Math.round(t.resumedShare * 100)}%`}
      of them resuming a session${t.offered != null && t.handshakes ? ` (${t.offered} offered one, ${t.resumed} resumed)` : ''}${
        t.entry
          ? html`; ${t.entry.node}: ${t.entry.cpuMsPerRequest ?? '-'} ms of CPU a request${
              t.entry.cpuMsPerConnection != null
                ? html`, ${t.entry.cpuMsPerConnection} ms a new connection`
                : ' (connections kept: no figure a new connection)'
            }`
          : ''
      }.
    </p>
    ${table(
      ['ms', 'count', 'p50', 'p90', 'p99', 'max'],
      [
        row('connect (TCP)', t.connectMs),
        row('TLS handshake', t.handshakeMs),
        row('first byte, from the send', t.firstByteMs),
      ],
      'tls',
    )}
    <p class="note">
      Connect and handshake are timed for the requests that opened a connection; the first byte for every request.
      ${t.entry ? t.entry.note : ''}
    </p>`;
}

module.exports = { tlsSection };
