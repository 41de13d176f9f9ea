'use strict';

const cheerio = require('cheerio');
const { tlsSection } = require('../../../lab/report/tls-html');
const { tableRows } = require('../../helper');

test('a TLS run: the protocol, the resumed share, the entry cost and a row per timing', () => {
  const $ = cheerio.load(
    String(
      tlsSection({
        tls: {
          protocol: 'h2',
          handshakes: 40,
          offered: 39,
          resumed: 39,
          resumedShare: 0.975,
          entry: { node: 'balancer', cpuMsPerRequest: 0.12, cpuMsPerConnection: 1.5, note: 'over the whole run' },
          connectMs: { count: 40, p50: 0.2, p90: 0.4, p99: 0.9, max: 1.1 },
          handshakeMs: { count: 40, p50: 2, p90: 3, p99: 5, max: 6 },
          firstByteMs: null,
        },
      }),
    ),
  );
  expect($('h2').text()).toBe('TLS');
  const text = $('p').first().text().replace(/\s+/g, ' ');
  expect(text).toMatch(
    /h2; 40 new connection\(s\), 98% of them resuming a session \(39 offered one, 39 resumed\); balancer: 0\.12 ms of CPU a request, 1\.5 ms a new connection\./,
  );
  expect(tableRows($)).toEqual([
    ['ms', 'count', 'p50', 'p90', 'p99', 'max'],
    ['connect (TCP)', '40', '0.2', '0.4', '0.9', '1.1'],
    ['TLS handshake', '40', '2', '3', '5', '6'],
    ['first byte, from the send', '-', '-', '-', '-', '-'],
  ]);
});

test('no TLS: no section; no resumption measured: a dash, not 0%', () => {
  expect(tlsSection({})).toBe('');
  const $ = cheerio.load(String(tlsSection({ tls: { protocol: 'http/1.1', handshakes: 0, resumedShare: null } })));
  expect($('p').first().text().replace(/\s+/g, ' ')).toMatch(
    /http\/1\.1; 0 new connection\(s\), - of them resuming a session\./,
  );
});
