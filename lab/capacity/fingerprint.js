'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../paths');

// What a capacity search measured, as a fingerprint a later reader compares (choose --from
// refuses the sweeps of another service, or of this one changed): the service (its name, its
// start line, and the contents of its package.json and lock file: its dependencies; the lab's
// own service by the contents of service/), its stores (--with), the entry's TLS, the requests
// (a script's own bytes, and its payload's), and the lab's version. Contents, never
// modification times: a fresh clone of the same service is the same service. (A source
// file changed without its package.json or lock is not seen: said in docs/choose.md.)
const FILES_BYTES = 16 * 1024 * 1024;

function digestFiles(files) {
  const h = crypto.createHash('sha256');
  let read = 0;
  for (const f of files) {
    let buf = null;
    try {
      const st = fs.statSync(f);
      if (st.isFile() && read + st.size <= FILES_BYTES) buf = fs.readFileSync(f);
      read += st.size;
    } catch {
      // not there: its absence is part of the fingerprint
    }
    h.update(`${path.basename(f)}\0${buf ? buf.length : -1}\0`);
    if (buf) h.update(buf);
  }
  return h.digest('hex').slice(0, 16);
}

// The lab's own service: its source files (service/, no node_modules).
function ownService() {
  const dir = path.join(ROOT, 'service');
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name === 'node_modules') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) files.push(p);
    }
  };
  walk(dir);
  return digestFiles(files);
}

// p: a capacity plan (lab/capacity/plan.js). -> { service, start, dependencies, with,
// tls, requests, lab }.
function fingerprintOf(p) {
  const app = p.app;
  const script = p.values.script ?? null;
  const payload = p.values.payload ? path.resolve(p.values.payload) : null;
  return {
    service: app ? app.name : 'node-deploy-lab service',
    start: app ? app.line : null,
    dependencies: app
      ? digestFiles(['package.json', 'package-lock.json', 'npm-shrinkwrap.json'].map((f) => path.join(app.dir, f)))
      : ownService(),
    with: p.values.with ?? null,
    tls: p.tls ? (p.tls.http2 ? 'http2' : 'tls') : null,
    requests: script ? digestFiles([script, ...(payload ? [payload] : [])]) : p.words.join(' '),
    lab: require('../../package.json').version,
    // (--node: the Node versions its service ran on; null, the lab's own, is left out so that
    // a fingerprint kept before this field still matches one of the lab's own Node.)
    ...(p.nodes ? { node: p.nodes.map((n) => n.version) } : {}),
  };
}

// What differs between two fingerprints, as a person reads it: [] when they are the same.
const NAMES = {
  service: 'the service',
  start: 'its start line',
  dependencies: 'its package.json or lock file (its dependencies)',
  with: 'its stores (--with)',
  tls: 'the entry (TLS)',
  requests: 'the requests (the path, or the script and its payload)',
  lab: "the lab's version",
  node: 'the Node version (--node)',
};
function fingerprintDiffers(was, now) {
  if (!was) return ['the fingerprint (the sweep was measured by a lab that kept none: measure it again)'];
  return Object.keys(NAMES)
    .filter((k) => JSON.stringify(was[k] ?? null) !== JSON.stringify(now[k] ?? null))
    .map((k) => NAMES[k]);
}

module.exports = { fingerprintOf, fingerprintDiffers };
