'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const scenario = require('../../../lab/commands/scenario');
const { ROOT, refusalOf, flagsOf } = require('../../helper');

// What a new user typed that the lab once took and then ignored, misnamed or found late: each
// is refused before anything starts (exit 2, naming the flag typed and its value), or said in
// the plan and the script the run is made from.
const FIX = path.join(ROOT, 'test', 'fixtures');
const apps = (name) => path.join(FIX, 'apps', name);
const STATE = ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'lab-refusals-'))];
const refusal = (...argv) => refusalOf(() => scenario.plan([...argv, ...STATE]), { code: 'taken' });

test('--http2 with Artillery, which speaks HTTP/1.1 only: refused, not labelled http2', () => {
  const r = refusal('ping', 'load', 'single', '--http2');
  expect(r).toMatchObject({ code: 'LAB_ERR_FLAGS_EXCLUDE', exit: 2 });
  expect(r.message).toMatch(
    /^--http2 and --generator artillery exclude each other: Artillery's HTTP engine speaks HTTP\/1\.1 only/,
  );
  expect(refusal('ping', 'load', 'single', '--http2', '--generator', 'fast').code).toBe('taken');
});

// Certificates of the test's own (openssl, as the lab makes its own: lab/tls/certs.js).
function cert(dir, name, san, { ca = null } = {}) {
  const f = (n) => path.join(dir, n);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  if (!ca) {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        ...ec,
        '-keyout',
        f(`${name}.key`),
        '-out',
        f(`${name}.crt`),
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=${san}`,
      ],
      { stdio: 'ignore' },
    );
  } else {
    execFileSync(
      'openssl',
      ['req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`],
      { stdio: 'ignore' },
    );
    fs.writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\n`);
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        f(`${name}.csr`),
        '-CA',
        f(`${ca}.crt`),
        '-CAkey',
        f(`${ca}.key`),
        '-CAcreateserial',
        '-out',
        f(`${name}.crt`),
        '-days',
        '2',
        '-extfile',
        f(`${name}.ext`),
      ],
      { stdio: 'ignore' },
    );
  }
  return { cert: f(`${name}.crt`), key: f(`${name}.key`) };
}

test('your certificate: its CA read and checked, its names checked against the address served, before anything starts', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-certs-'));
  const ca = cert(dir, 'ca', 'DNS:ca');
  const other = cert(dir, 'other', 'DNS:ca-other');
  const ok = cert(dir, 'entry', 'IP:127.0.0.1', { ca: 'ca' });
  const elsewhere = cert(dir, 'elsewhere', 'DNS:shop.example', { ca: 'ca' });
  const tls = (c, more = []) =>
    refusal('ping', 'load', 'single', '--tls', '--tls-cert', c.cert, '--tls-key', c.key, ...more);
  expect(tls(ok, ['--tls-ca', ca.cert]).code).toBe('taken');
  const missing = tls(ok, ['--tls-ca', '/nonexistent/ca.pem']);
  expect(missing).toMatchObject({ code: 'LAB_ERR_TLS', exit: 2 });
  expect(missing.message).toMatch(/--tls-ca \/nonexistent\/ca\.pem: no such file/);
  expect(tls(ok, ['--tls-ca', other.cert]).message).toMatch(/was not issued by --tls-ca/);
  const named = tls(elsewhere);
  expect(named).toMatchObject({ code: 'LAB_ERR_TLS', exit: 2 });
  expect(named.message).toMatch(
    /is not for 127\.0\.0\.1, where the entry will answer \(its names: DNS:shop\.example\)/,
  );
  // --tls-ca alone beside --tls: it is for a certificate of yours, and would be dropped.
  expect(refusal('ping', 'load', 'single', '--tls', '--tls-ca', ca.cert).code).toBe('LAB_ERR_FLAG_NEEDS');
});

test('the autoscaler: --replicas outside its bounds, a share over 100%; a rollout after the load; the room said without a made-up count', () => {
  const outside = refusal('ping', 'load', 'replicated', '--autoscale', '2-4', '--replicas', '6');
  expect(outside).toMatchObject({ code: 'LAB_ERR_FLAG_VALUE', exit: 2 });
  expect(outside.message).toMatch(/^--replicas 6: outside --autoscale 2-4/);
  for (const target of ['loop=250%', '150']) {
    const metric = target.startsWith('loop') ? ['--autoscale-metric', 'loop'] : [];
    const over = refusal('ping', 'load', 'replicated', '--autoscale', '1-4', ...metric, '--autoscale-target', target);
    expect(over.message).toMatch(/is a share of at most 100%/);
  }
  const late = refusal(
    'ping',
    'endurance',
    'replicated',
    ...flagsOf({ generator: 'closed', duration: 10, rolloutAt: 30 }),
  );
  expect(late.message).toMatch(/^--rollout-at 30 s: the load lasts 10 s/);
  const room = refusal('ping', 'load', 'replicated', '--rollout-at', '5', '--max-surge', '0', '--max-unavailable', '0');
  expect(room.message).toMatch(/leave no room to replace a replica: one of them must allow at least 1/);
  expect(room.message).not.toMatch(/among 4/);
});

test('--print under --tls names the https:// target the generator is given', async () => {
  const printed = await scenario(['ping', 'load', 'single', '--tls', '--print', ...STATE], { log: () => {} });
  expect(printed.stdout).toMatch(/^ {2}target: https:\/\/127\.0\.0\.1:\d+$/m);
  const plain = await scenario(['ping', 'load', 'single', '--print', ...STATE], { log: () => {} });
  expect(plain.stdout).toMatch(/^ {2}target: http:\/\/127\.0\.0\.1:\d+$/m);
});

test('names the flag typed: -p missing.csv, --overrides not an object, --app-next not a folder', () => {
  const script = path.join(FIX, 'conformance', 'cli-payload.yml');
  const p = refusal('--script', script, 'single', '-p', 'missing.csv');
  expect(p).toMatchObject({ code: 'LAB_ERR_FLAG_VALUE', exit: 2 });
  expect(p.message).toMatch(/^--payload missing\.csv: no such file \(.*missing\.csv, from the working folder\)/);
  const o = refusal(
    '--script',
    script,
    'single',
    '-p',
    path.join(FIX, 'conformance', 'rows.csv'),
    '--overrides',
    '[1,2]',
  );
  expect(o.message).toBe(`--overrides '[1,2]': expected a JSON object, like '{"name": "value"}'`);
  const next = refusal(
    '/x',
    'load',
    'replicated',
    ...flagsOf({ app: apps('rolling'), rolloutAt: 5, appNext: '/nonexistent' }),
  );
  expect(next.message).toBe('--app-next /nonexistent: no such folder');
});

test('study elasticity --autoscale 0-3: the rule said as it is (MIN at least 1)', () => {
  const { STUDIES } = require('../../../lab/studies');
  let err = null;
  try {
    STUDIES.elasticity.plan({ autoscale: '0-3', scale: 1 });
  } catch (e) {
    err = e;
  }
  expect(err.message).toMatch(/^--autoscale 0-3: expected 1 <= MIN < MAX/);
});
