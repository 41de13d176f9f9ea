'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const tls = require('node:tls');
const { execFileSync } = require('node:child_process');
const { lab, ownPlace, errorCode, ROOT, forDeploy, stateOf, jsonOf, flagsOf } = require('../../helper');

// The entry as production has it (lab/tls/, the kinds' configs, the generators' TLS client):
// each L7 kind terminates TLS (and HTTP/2) with a certificate the lab makes, its replicas
// stay plain HTTP behind it (the tests' recorder app says what arrived), the client side
// checks the chain and the protocol ALPN chose, and the generators count resumed sessions.
const RECORDER = path.join(ROOT, 'test', 'fixtures', 'apps', 'recorder');

// One TLS connection to the entry: the chain checked against the CA, the protocol chosen.
function handshake(url, ca, alpn) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const s = tls.connect(
      { host: u.hostname, port: Number(u.port), ca: fs.readFileSync(ca), ALPNProtocols: alpn },
      () => {
        const cert = s.getPeerCertificate(true);
        resolve({
          authorized: s.authorized,
          protocol: s.alpnProtocol,
          issuer: cert.issuer?.CN,
          subject: cert.subject?.CN,
        });
        s.end();
      },
    );
    s.on('error', reject);
  });
}

describe.each([['nginx'], ['haproxy'], ['caddy'], ['node']])('%s', (kind) => {
  test.each([
    ['--tls', 'http/1.1'],
    ['--http2', 'h2'],
  ])(
    `%s: the chain checks, ALPN says the protocol, the replica got plain HTTP/1.1, the summary says it all`,
    async (flagName, protocol) => {
      const place = await ownPlace({ ports: 70 });
      const up = await lab(
        [
          'deploy',
          'single',
          '--app',
          RECORDER,
          '--balancer',
          kind,
          flagName,
          '--json',
          ...forDeploy(place),
          // (Ahead of the other files' processes, the entry and the run below alike: in the whole
          // suite the node entry once answered 49 of 60 requests in a run's 3 s and its drain.)
        ],
        { first: true },
      );
      try {
        expect(up.stderr).not.toMatch(/LAB_ERR/);
        const state = jsonOf(up);
        expect(state.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const ca = path.join(stateOf(place), 'tls', 'ca.crt');
        const h = await handshake(state.url, ca, ['h2', 'http/1.1']);
        expect(h).toMatchObject({ authorized: true, protocol, issuer: 'node-deploy-lab CA' });
        // The key is the lab's alone to read.
        expect(fs.statSync(path.join(stateOf(place), 'tls', 'server.key')).mode & 0o077).toBe(0);
        // Through the entry, with curl (its own TLS client): the replica got plain HTTP/1.1.
        const out = JSON.parse(
          execFileSync(
            'curl',
            ['-s', '--cacert', ca, ...(protocol === 'h2' ? ['--http2'] : ['--http1.1']), `${state.url}/what?x=1`],
            {
              encoding: 'utf8',
            },
          ),
        );
        expect(out).toMatchObject({ method: 'GET', url: '/what?x=1', httpVersion: '1.1' });
        // A run through it: the protocol, new connections and their resumption, the times.
        const run = await lab(
          [
            'scenario',
            '/what',
            'endurance',
            ...flagsOf({
              target: state.url,
              generator: 'fast',
              rate: 20,
              duration: 3,
              json: true,
              graphite: false,
              stateDir: stateOf(place),
              resultsDir: fs.mkdtempSync(path.join(os.tmpdir(), 'tls-r-')),
            }),
          ],
          { timeoutMs: 120000, first: true },
        );
        const s = jsonOf(run);
        // (Counted against the requests the run sent: a busy machine may send fewer of the 60
        // arrivals in its 3 s.)
        expect(s.requestsSent).toBeGreaterThan(30);
        // (With the errors by kind when some did not complete: the count alone said nothing of why.)
        expect({ completed: s.requestsCompleted, errors: s.errors }).toEqual({ completed: s.requestsSent, errors: {} });
        expect(s.tls).toMatchObject({ protocol, handshakes: s.requestsSent });
        // Resumed: a connection can resume only with a ticket an earlier one received, which
        // a busy machine delivers late (beside four CPU hogs, 47 of 60 connections once, none
        // another time, were opened before it came); every connection that offered a session
        // resumed it. Without resumption, none offered (the test below).
        expect(s.tls.offered).toBeGreaterThan(0);
        expect(s.tls.resumed).toBe(s.tls.offered);
        expect(s.tls.resumedOfOffered).toBe(1);
        expect(s.tls.handshakeMs.p50).toBeGreaterThan(0);
        expect(s.tls.firstByteMs.count).toBe(s.requestsSent);
        expect(s.tls.handshakeMs.p99).toBeLessThanOrEqual(s.tls.handshakeMs.max);
      } finally {
        await lab(['down', '--state-dir', stateOf(place)]);
      }
      // Nothing of the certificate left with the deployment.
      expect(fs.existsSync(path.join(stateOf(place), 'tls'))).toBe(false);
    },
    180000,
  );
});

test('--tls-resume off: every new connection a full handshake; the closed loop over HTTP/2 with streams', async () => {
  // (Each run in a place of its own, and ahead of the other files' processes: twice, beside
  // five other files, the HTTP/2 closed loop (2 sessions, 4 streams each) completed 2 requests
  // in 5 s with no error; never alone nor beside two CPU hogs. The cause is not found yet: a
  // stall of the closed loop's HTTP/2 streams under load is suspected.)
  const run = async (args) =>
    lab(
      [
        'scenario',
        'ping',
        'endurance',
        'single',
        '--generator',
        ...args,
        '--no-graphite',
        '--json',
        ...(await ownPlace({ ports: 70 })),
      ],
      { timeoutMs: 180000, first: true },
    );
  const full = JSON.parse(
    (await run(['fast', '--tls', '--tls-resume', 'off', '--rate', '20', '--duration', '3'])).stdout,
  );
  // A new connection a request, each a full handshake: every request answered had one (it made
  // its own connection), and no more were made than requests sent. (Counted against what the
  // run did: beside five other files it once sent 56 of its 60 arrivals in its 3 s, and once
  // 47 of its 60 connections completed a handshake; its figures are in the failure.)
  const { requestsSent: sent, requestsCompleted: answered, errors } = full;
  expect(sent).toBeGreaterThan(30);
  expect({
    sent,
    answered,
    errors,
    handshakes: full.tls.handshakes,
    inRange: full.tls.handshakes >= answered && full.tls.handshakes <= sent,
  }).toMatchObject({ inRange: true });
  expect(answered).toBeGreaterThan(sent / 2);
  expect(full.tls).toMatchObject({ offered: 0, resumed: 0, resumedShare: 0, protocol: 'http/1.1' });
  expect(full.tls.entry.cpuMsPerConnection).toBeGreaterThan(0);
  // (5 s: beside four CPU hogs and the TLS study, a run of 3 s once ended with no TLS figure
  // at all; what it said then is in the failure.)
  const h2 = JSON.parse(
    (await run(['closed', '--http2', '--connections', '2', '--streams', '4', '--duration', '5'])).stdout,
  );
  expect({ status: h2.status, errors: h2.errors, protocol: h2.tls?.protocol, handshakes: h2.tls?.handshakes }).toEqual({
    status: 'completed',
    errors: {},
    protocol: 'h2',
    handshakes: 2,
  });
  expect(h2.requestsCompleted).toBeGreaterThan(100);
  // Two sessions carried every request: the entry's CPU went to them, and no figure a new
  // connection is made of the whole run's CPU over 2 (once: 96.6 ms a connection).
  expect(h2.tls.entry.cpuMsPerConnection).toBeNull();
  expect(h2.tls.entry.note).toMatch(/2 connection\(s\) carried \d+ request\(s\)/);
  expect(h2.generator.connections).toBeDefined();
}, 300000);

test('--generator artillery runs an https:// script against a --tls deployment, the lab CA trusted', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-script-'));
  const script = path.join(dir, 'https.yml');
  fs.writeFileSync(
    script,
    'config:\n  target: "https://127.0.0.1:1"\n  phases:\n    - duration: 3\n      arrivalRate: 5\nscenarios:\n  - flow:\n      - get:\n          url: "/ping"\n',
  );
  const r = await lab(
    ['scenario', '--script', script, 'single', '--tls', '--no-graphite', '--json', ...(await ownPlace())],
    {
      timeoutMs: 180000,
    },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const s = jsonOf(r);
  expect(s.target).toMatch(/^https:/);
  expect(s.codes).toEqual({ 200: 15 });
}, 200000);

test('bad input: an L4 kind, a certificate that is not one, a key of another: exit 2, nothing running', async () => {
  const place = forDeploy(await ownPlace({ ports: 70 }));
  const l4 = await lab(['deploy', 'replicated', '--balancer', 'haproxy-l4', '--tls', ...place]);
  expect({ code: l4.code, err: errorCode(l4.stderr) }).toEqual({ code: 2, err: 'LAB_ERR_TLS' });
  expect(l4.stderr).toMatch(/haproxy-l4 balances TCP \(L4\): it passes the bytes through and cannot terminate TLS/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-bad-'));
  fs.writeFileSync(path.join(dir, 'cert.pem'), 'not a certificate\n');
  fs.writeFileSync(path.join(dir, 'key.pem'), 'not a key\n');
  const bad = await lab([
    'deploy',
    'single',
    '--tls-cert',
    path.join(dir, 'cert.pem'),
    '--tls-key',
    path.join(dir, 'key.pem'),
    ...place,
  ]);
  expect({ code: bad.code, err: errorCode(bad.stderr) }).toEqual({ code: 2, err: 'LAB_ERR_TLS' });
  expect(bad.stderr).toMatch(/is not a PEM certificate/);
  // A real certificate with another's key.
  const make = (name) =>
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
        '-days',
        '1',
        '-subj',
        '/CN=x',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
  make('a');
  make('b');
  const mixed = await lab([
    'deploy',
    'single',
    '--tls-cert',
    path.join(dir, 'a.crt'),
    '--tls-key',
    path.join(dir, 'b.key'),
    ...place,
  ]);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toMatch(/is not the key of --tls-cert/);
  const only = await lab(['deploy', 'single', '--tls-cert', path.join(dir, 'a.crt'), ...place]);
  expect(only.stderr).toMatch(
    /--tls-cert needs --tls-key: the certificate and its key go together \[LAB_ERR_FLAG_NEEDS\]/,
  );
  expect((await lab(['status', '--state-dir', stateOf(place)])).stdout).not.toMatch(/online/);
}, 120000);
