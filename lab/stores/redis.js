'use strict';

const fs = require('node:fs');
const net = require('node:net');

// Redis as a node of a deployment (--with redis): one server shared by every replica and
// worker, on the lab's port. Locally Debian's redis-server (7 here) in the foreground under
// the deployment's pm2, its data in the state folder (none kept between deploys, unless
// --keep-data, which saves it to disk). It rewrites its process title to `redis-server
// HOST:PORT`: it is known by its pid and its port, never by its command line.
module.exports = {
  name: 'redis',
  role: 'cache',
  what: 'Redis',
  package: 'redis-server',
  program: 'redis-server',
  port: 'redis',
  findBin() {
    for (const d of ['/usr/bin', '/usr/local/bin', '/usr/sbin']) {
      if (fs.existsSync(`${d}/redis-server`)) return d;
    }
    return null;
  },
  reachable: () => true,
  async prepare({ dir, fresh }) {
    if (fresh) fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    return { data: dir, kept: !fresh };
  },
  command({ bin, dir, host, port, fresh }) {
    return {
      command: `${bin}/redis-server`,
      args: [
        '--port',
        String(port),
        '--bind',
        host,
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--protected-mode',
        'no',
        '--appendonly',
        'no',
        // Nothing written to disk unless the data is to be kept (--keep-data).
        '--save',
        fresh ? '' : '60 1',
        '--logfile',
        '',
      ],
    };
  },
  ready: ({ host, port }) => ping(host, port),
  init: async () => {},
  env: ({ host, port }) => ({ REDIS_URL: `redis://${host}:${port}` }),
};

// PING, answered +PONG.
function ping(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    let got = '';
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      got += d;
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
    s.on('error', () => done(false));
  });
}
