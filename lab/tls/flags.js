'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const { flag } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const { kindOf } = require('../kinds');

// --tls and --http2, on every command that deploys (deploy, scenario, capacity, study): the
// entry terminates TLS (HTTP/2 too) for its clients, its replicas plain HTTP behind it.
// Checked once, before anything starts: the kind can (an L4 one cannot), the runtime can, and
// a certificate of the user's is one (lab/tls/certs.js makes the lab's own otherwise).
const TLS_FLAGS = {
  tls: flag.bool(),
  http2: flag.bool(),
  'tls-cert': { ...flag.path(), needs: { flags: ['tls-key'], why: 'the certificate and its key go together' } },
  'tls-key': { ...flag.path(), needs: { flags: ['tls-cert'], why: 'the certificate and its key go together' } },
  'tls-ca': {
    ...flag.path(),
    needs: { flags: ['tls-cert'], why: 'it is the CA that signed your certificate; the lab signs its own with its CA' },
  },
};

const TLS_HELP = `  --tls         the entry terminates TLS (its replicas stay plain HTTP behind it), with a
                certificate the lab makes for the deployment (a CA of its own, trusted by its
                generators), or yours: --tls-cert FILE --tls-key FILE [--tls-ca FILE]
  --http2       the entry speaks HTTP/2 to clients (ALPN h2; implies --tls), HTTP/1.1 to replicas`;

// -> the deployment's `tls` ({ http2, cert, key, ca } with the user's files, or none), or null.
function tlsOf(values, { balancer = 'nginx', runtime = 'local', host = '127.0.0.1' } = {}) {
  const own = values['tls-cert'] !== undefined || values['tls-key'] !== undefined;
  const on = values.tls || values.http2 || own;
  // (--tls-ca without --tls-cert, --tls-cert without --tls-key: refused by the flags' needs.)
  if (!on) return null;
  const kind = kindOf(balancer);
  if (!kind.tls) throw labError('LAB_ERR_TLS', kind.tlsWhy);
  if (runtime !== 'local')
    throw labError(
      'LAB_ERR_TLS',
      `the ${runtime} runtime's entries speak plain HTTP for now: TLS runs on the local runtime (--engine local)`,
    );
  const tls = { http2: Boolean(values.http2) };
  if (own) {
    checkPair(values['tls-cert'], values['tls-key'], { ca: values['tls-ca'], host });
    Object.assign(tls, { cert: values['tls-cert'], key: values['tls-key'], ca: values['tls-ca'] ?? null });
  }
  return Object.freeze(tls);
}

// The user's certificate and key: PEM, the key the certificate's, not expired; issued by
// --tls-ca when given (read now: a missing file was once found by the deploy, "ENOENT"); and
// for the address the entry serves, which the generators check (a certificate for another
// name was once found 25 s into the run, "ERR_TLS_CERT_ALTNAME_INVALID").
function checkPair(certFile, keyFile, { ca = null, host = null } = {}) {
  const read = (file, what) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw labError('LAB_ERR_TLS', `${what} ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    }
  };
  let x509;
  let key;
  try {
    x509 = new crypto.X509Certificate(read(certFile, '--tls-cert'));
  } catch (err) {
    if (err.code === 'LAB_ERR_TLS') throw err;
    throw labError('LAB_ERR_TLS', `--tls-cert ${certFile} is not a PEM certificate (${err.message})`);
  }
  try {
    key = crypto.createPrivateKey(read(keyFile, '--tls-key'));
  } catch (err) {
    if (err.code === 'LAB_ERR_TLS') throw err;
    throw labError('LAB_ERR_TLS', `--tls-key ${keyFile} is not a PEM private key (${err.message})`);
  }
  if (!x509.checkPrivateKey(key))
    throw labError('LAB_ERR_TLS', `--tls-key ${keyFile} is not the key of --tls-cert ${certFile}`);
  if (Date.parse(x509.validTo) < Date.now())
    throw labError('LAB_ERR_TLS', `--tls-cert ${certFile} expired on ${x509.validTo}`);
  if (ca) {
    let caCert;
    try {
      caCert = new crypto.X509Certificate(read(ca, '--tls-ca'));
    } catch (err) {
      if (err.code === 'LAB_ERR_TLS') throw err;
      throw labError('LAB_ERR_TLS', `--tls-ca ${ca} is not a PEM certificate (${err.message})`);
    }
    if (!x509.checkIssued(caCert) || !x509.verify(caCert.publicKey))
      throw labError('LAB_ERR_TLS', `--tls-cert ${certFile} was not issued by --tls-ca ${ca}`);
  }
  if (host) {
    const covers = require('node:net').isIP(host) ? x509.checkIP(host) : x509.checkHost(host);
    if (!covers)
      throw labError(
        'LAB_ERR_TLS',
        `--tls-cert ${certFile} is not for ${host}, where the entry will answer (its names: ${x509.subjectAltName ?? x509.subject}): make it with ${require('node:net').isIP(host) ? `IP:${host}` : `DNS:${host}`} among its subject alternative names, or give --host a name it has`,
      );
  }
}

module.exports = { TLS_FLAGS, TLS_HELP, tlsOf, checkPair };
