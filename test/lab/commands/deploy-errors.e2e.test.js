'use strict';

const net = require('node:net');
const { lab, freePortBase, tmpStateDir, errorCode } = require('../../helper');
const { tcpFree } = require('../../../lab/topology/ports');

describe('deploy: bad input and failures', () => {
  test('an unknown deployment exits 2 and lists the valid names', async () => {
    const r = await lab(['deploy', 'replicatd', '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe('LAB_ERR_UNKNOWN_NAME');
    expect(r.stderr).toMatch(/"replicated"/);
    expect(r.stderr).toMatch(/single, replicated, multi/);
  });

  test.each([
    [['deploy'], 'LAB_ERR_MISSING_ARG', '<deployment>'],
    [['deploy', 'single', '--replicas', '0'], 'LAB_ERR_INVALID_VALUE', '--replicas'],
    [['deploy', 'single', '--bogus'], 'LAB_ERR_UNKNOWN_FLAG', '--bogus'],
    [['deploy', 'single', '--port-base', 'x'], 'LAB_ERR_INVALID_VALUE', '--port-base'],
    [['depoly', 'single'], 'LAB_ERR_UNKNOWN_NAME', '"deploy"'],
    // Each balancer kind names the engines it runs on.
    [['deploy', 'single', '--balancer', 'mesh'], 'LAB_ERR_NOT_ON_ENGINE', 'swarm engine'],
    [['deploy', 'single', '--balancer', 'nginx-l4', '--engine', 'swarm'], 'LAB_ERR_NOT_ON_ENGINE', 'local engine'],
    [['deploy', 'single', '--balancer', 'none', '--engine', 'compose'], 'LAB_ERR_NOT_ON_ENGINE', 'local engine'],
    [['deploy', 'cdn', '--edge-kind', 'varnish', '--engine', 'swarm'], 'LAB_ERR_NOT_ON_ENGINE', 'local or compose'],
    [['deploy', 'single', '--edge-kind', 'varnish'], 'LAB_ERR_FLAG_NEEDS', '--edges'],
    [['deploy', 'cdn', '--edge-kind', 'squid'], 'LAB_ERR_UNKNOWN_NAME', 'varnish'],
  ])('%j is a usage error (exit 2, %s naming %s)', async (args, code, named) => {
    const r = await lab([...args, '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe(code);
    expect(r.stderr).toContain(named);
  });

  test('a busy port is named, the deploy exits 1 and nothing is left running', async () => {
    const base = await freePortBase();
    const blocker = net.createServer().listen(base + 10, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const stateDir = tmpStateDir();
      const r = await lab(['deploy', 'single', '--port-base', String(base), '--state-dir', stateDir]);
      expect(r.code).toBe(1);
      expect(errorCode(r.stderr)).toBe('LAB_ERR_PORT_IN_USE');
      expect(r.stderr).toContain(`${base + 10}`);
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
    expect(errorCode(r.stderr)).toBe('LAB_ERR_NGINX_MISSING');
    expect(r.stderr).toContain('apt-get install -y nginx libnginx-mod-stream');
  });

  test('a second deploy while one is up says so, exits non-zero and leaves the first one up', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const first = await lab(['deploy', 'single', '--port-base', String(base), '--state-dir', stateDir]);
    expect(first.code).toBe(0);
    try {
      const second = await lab(['deploy', 'multi', '--port-base', String(base + 50), '--state-dir', stateDir]);
      expect(second.code).toBe(1);
      expect(errorCode(second.stderr)).toBe('LAB_ERR_ALREADY_UP');
      const status = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
      expect(status.up).toBe(true);
      expect(status.deployment.name).toBe('single');
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  });
});
