'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { labError } = require('../../common/errors');
const { checkPair } = require('./flags');

// The entry's certificate (--tls): one the lab makes for the deployment, with Debian's
// openssl, or the user's own (--tls-cert, --tls-key), checked before anything starts. Made:
// a CA of the lab's for this state folder, and a server certificate it signs for 127.0.0.1,
// localhost and the deployment's own address, both ECDSA P-256 (what most sites serve
// today), valid for 30 days. Everything lives in the state folder's tls/ (its keys readable
// by the lab's user only), and the clients trust the CA, never a verification turned off.
//   -> { dir, ca, cert, key, pem (cert and key together, HAProxy's form), made: boolean }
const DAYS = 30;

function run(args, cwd) {
  try {
    return execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 }).toString();
  } catch (err) {
    if (err.code === 'ENOENT')
      throw labError('LAB_ERR_KIND_MISSING', '--tls', 'openssl', 'openssl', 'to make the certificate');
    throw labError(
      'LAB_ERR_PROCESS',
      `openssl ${args[0]}`,
      String(err.stderr || err.message)
        .trim()
        .split('\n')
        .pop(),
    );
  }
}

// The lab's own CA and server certificate, in dir (made when missing or no longer valid).
function makeCerts(dir, { hosts = ['127.0.0.1'] } = {}) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const f = (n) => path.join(dir, n);
  const names = [...new Set(['127.0.0.1', 'localhost', ...hosts])];
  const fresh = fs.existsSync(f('server.crt')) && validFor(f('server.crt'), names);
  if (!fresh) {
    const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    run(
      [
        'req',
        '-x509',
        ...ec,
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        String(DAYS),
        '-subj',
        '/CN=node-deploy-lab CA',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      dir,
    );
    run(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=node-deploy-lab entry'], dir);
    fs.writeFileSync(
      f('server.ext'),
      `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    run(
      [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'server.crt',
        '-days',
        String(DAYS),
        '-extfile',
        'server.ext',
      ],
      dir,
    );
  }
  return finish(dir, { made: !fresh });
}

// The user's own certificate and key: readable, PEM, the key the certificate's, and its
// chain (the certificate file may hold intermediates after it). A CA to trust: --tls-ca, or
// the certificate itself when it is self-signed.
function userCerts(dir, { cert, key, ca = null }) {
  checkPair(cert, key);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'server.crt'), fs.readFileSync(cert));
  fs.writeFileSync(path.join(dir, 'server.key'), fs.readFileSync(key), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'ca.crt'), fs.readFileSync(ca ?? cert));
  return finish(dir, { made: false, own: true });
}

function finish(dir, extra) {
  const f = (n) => path.join(dir, n);
  fs.writeFileSync(
    f('server.pem'),
    Buffer.concat([fs.readFileSync(f('server.crt')), fs.readFileSync(f('server.key'))]),
    { mode: 0o600 },
  );
  for (const k of ['server.key', 'ca.key', 'server.pem']) if (fs.existsSync(f(k))) fs.chmodSync(f(k), 0o600);
  return { dir, ca: f('ca.crt'), cert: f('server.crt'), key: f('server.key'), pem: f('server.pem'), ...extra };
}

// Whether a certificate covers these names and has a day left.
function validFor(file, names) {
  try {
    const x = new crypto.X509Certificate(fs.readFileSync(file));
    if (Date.parse(x.validTo) - Date.now() < 86400000) return false;
    return names.every((n) => x.checkIP(n) || x.checkHost(n));
  } catch {
    return false;
  }
}

module.exports = { makeCerts, userCerts };
