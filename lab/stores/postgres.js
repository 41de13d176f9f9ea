'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { labError } = require('../../common/errors');

// PostgreSQL as a node of a deployment (--with postgres): one server, shared by every
// replica and worker of your service, on the lab's port. Locally it is Debian's postgresql
// (15 here) run as the lab's own process in the foreground under the deployment's pm2, its
// data a fresh cluster (initdb) at every deploy unless --keep-data; as root it runs as the
// package's own `postgres` user, which PostgreSQL requires. In containers, an image of the
// lab's base with the same package. Its figures (transactions, connections, lock waits, rows,
// cache hits) are read from pg_stat_database and pg_stat_activity by ./stats.js.
const USER = 'lab';
const PASSWORD = 'lab';
const DATABASE = 'app';
const SYSTEM_USER = 'postgres';

// The newest PostgreSQL's programs of Debian's layout (/usr/lib/postgresql/N/bin), or null.
function findBin(root = '/usr/lib/postgresql') {
  let versions;
  try {
    versions = fs
      .readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return null;
  }
  for (const v of versions) {
    const dir = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(dir, 'postgres')) && fs.existsSync(path.join(dir, 'initdb'))) return dir;
  }
  return null;
}

const run = (cmd, args, o = {}) =>
  new Promise((resolve) =>
    execFile(cmd, args, { timeout: 60000, maxBuffer: 8 << 20, ...o }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: `${stdout}${stderr}`.trim() }),
    ),
  );

// As root, PostgreSQL's programs run as its own user (setpriv: no shell, no session in between).
function asOwner(bin, args) {
  if (process.getuid() !== 0) return { command: bin, args };
  return {
    command: '/usr/bin/setpriv',
    args: ['--reuid', SYSTEM_USER, '--regid', SYSTEM_USER, '--init-groups', '--', bin, ...args],
  };
}

// Its folder: data and socket, owned by the user it runs as.
function ownFolder(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.getuid() === 0) {
    const { uid, gid } = systemUser();
    fs.chownSync(dir, uid, gid);
  }
}

function systemUser() {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${SYSTEM_USER}:`));
  if (!line) throw labError('LAB_ERR_STORE', 'postgres', `there is no ${SYSTEM_USER} user: reinstall postgresql`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

// pg_stat_statements in the app database (where the lab reads it: lab/stores/statements.js).
async function createExtension({ bin, host, port }) {
  const r = await run(path.join(bin, 'psql'), [
    '-h',
    host,
    '-p',
    String(port),
    '-U',
    USER,
    '-d',
    DATABASE,
    '-Atc',
    'CREATE EXTENSION IF NOT EXISTS pg_stat_statements',
  ]);
  if (!r.ok) throw labError('LAB_ERR_STORE', 'postgres', `pg_stat_statements: ${r.out}`);
}

module.exports = {
  name: 'postgres',
  role: 'database',
  what: 'PostgreSQL',
  package: 'postgresql',
  program: 'postgres',
  port: 'postgres',
  findBin,
  // Whether this folder can hold its data: every folder above it must let its user through.
  reachable(dir) {
    if (process.getuid() !== 0) return true;
    const { uid } = systemUser();
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      let st;
      try {
        st = fs.statSync(d);
      } catch {
        // not made yet: what is above it decides
        if (d === path.dirname(d)) return true;
        continue;
      }
      if (st.uid !== uid && !(st.mode & 0o001)) return false;
      if (d === path.dirname(d)) return true;
    }
  },
  // A fresh cluster (or the kept one): initdb with the lab's user, trust on loopback.
  async prepare({ bin, dir, fresh }) {
    const data = path.join(dir, 'data');
    if (!fresh && fs.existsSync(path.join(data, 'PG_VERSION'))) return { data, kept: true };
    if (fresh) fs.rmSync(dir, { recursive: true, force: true });
    ownFolder(dir);
    const { command, args } = asOwner(path.join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      USER,
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-instructions',
    ]);
    const r = await run(command, args, { cwd: dir });
    if (!r.ok) throw labError('LAB_ERR_STORE', 'postgres', `initdb failed: ${r.out.split('\n').slice(-3).join(' | ')}`);
    return { data, kept: false };
  },
  // The server in the foreground, for pm2. Profiled (--profile), it preloads
  // pg_stat_statements (in Debian's postgresql package), which counts each statement's time.
  command({ bin, dir, host, port, maxConnections, profile = false }) {
    return asOwner(path.join(bin, 'postgres'), [
      ...(profile ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : []),
      '-D',
      path.join(dir, 'data'),
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      `listen_addresses=${host}`,
      '-c',
      `max_connections=${maxConnections}`,
      '-c',
      'log_destination=stderr',
      '-c',
      'logging_collector=off',
    ]);
  },
  // Ready when it takes a connection; then the app's database is made (when it is new).
  async ready({ bin, host, port }) {
    const r = await run(path.join(bin, 'pg_isready'), ['-h', host, '-p', String(port), '-U', USER, '-d', 'postgres']);
    return r.ok;
  },
  async init({ bin, host, port, profile = false }) {
    const exists = await run(path.join(bin, 'psql'), [
      '-h',
      host,
      '-p',
      String(port),
      '-U',
      USER,
      '-d',
      'postgres',
      '-Atc',
      `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`,
    ]);
    if (exists.out !== '1') {
      const r = await run(path.join(bin, 'createdb'), ['-h', host, '-p', String(port), '-U', USER, DATABASE]);
      if (!r.ok) throw labError('LAB_ERR_STORE', 'postgres', `createdb failed: ${r.out}`);
    }
    // Profiled: the statements' counter, in the app database where the lab reads it.
    if (profile) await createExtension({ bin, host, port });
  },
  // What your service is given: the URL and libpq's own variables.
  env({ host, port }) {
    return {
      DATABASE_URL: `postgres://${USER}:${PASSWORD}@${host}:${port}/${DATABASE}`,
      PGHOST: host,
      PGPORT: String(port),
      PGUSER: USER,
      PGPASSWORD: PASSWORD,
      PGDATABASE: DATABASE,
    };
  },
  USER,
  PASSWORD,
  DATABASE,
};
