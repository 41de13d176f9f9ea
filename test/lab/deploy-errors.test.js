'use strict';

const net = require('node:net');
const { lab, freePortBase, tmpStateDir } = require('../helper');
const { tcpFree } = require('../../lab/ports');

describe('deploy: bad input and failures', () => {
  test('an unknown deployment exits 2 and lists the valid names', async () => {
    const r = await lab(['deploy', 'replicatd', '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown deployment "replicatd" \(did you mean "replicated"\?\)/);
    expect(r.stderr).toMatch(/single, replicated, multi/);
  });

  test.each([
    [['deploy'], /expected one deployment name/],
    [['deploy', 'single', '--replicas', '0'], /--replicas must be an integer/],
    [['deploy', 'single', '--bogus'], /Unknown option '--bogus'/],
    [['deploy', 'single', '--port-base', 'x'], /--port-base/],
    [['depoly', 'single'], /unknown command "depoly" \(did you mean "deploy"\?\)/],
  ])('%j is a usage error (exit 2)', async (args, pattern) => {
    const r = await lab([...args, '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(pattern);
  });

  test('a busy port is named, the deploy exits 1 and nothing is left running', async () => {
    const base = await freePortBase();
    const blocker = net.createServer().listen(base + 10, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const stateDir = tmpStateDir();
      const r = await lab(['deploy', 'single', '--port-base', String(base), '--state-dir', stateDir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`port ${base + 10} \\(replica-1\\) is already in use`));
      for (const p of [base, base + 1, base + 2]) expect(await tcpFree(p, '127.0.0.1')).toBe(true);
      expect((await lab(['status', '--state-dir', stateDir])).stdout).toMatch(/nothing is up/);
    } finally {
      blocker.close();
    }
  });

  test('missing nginx gives the install command and exit 1', async () => {
    const r = await lab(
      ['deploy', 'single', '--state-dir', tmpStateDir(), '--port-base', String(await freePortBase())],
      {
        env: { LAB_NGINX: '/nonexistent/nginx' },
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nginx is not installed.*apt-get install -y nginx libnginx-mod-stream/);
  });

  test('a second deploy while one is up says so, exits non-zero and leaves the first one up', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const first = await lab(['deploy', 'single', '--port-base', String(base), '--state-dir', stateDir]);
    expect(first.code).toBe(0);
    try {
      const second = await lab(['deploy', 'multi', '--port-base', String(base + 50), '--state-dir', stateDir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/already up/);
      const status = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
      expect(status.up).toBe(true);
      expect(status.deployment.name).toBe('single');
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  });
});
