'use strict';

const { lab, freePortBase, tmpStateDir, get } = require('../helper');
const closedLoop = require('../../lab/closed-loop');

describe('replica failure behind nginx', () => {
  test('killing a replica under steady /ping traffic costs at most a handful of requests; pm2 brings it back', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const r = await lab(['deploy', 'replicated', '--port-base', String(base), '--state-dir', stateDir, '--json']);
    expect(r.code).toBe(0);
    const state = JSON.parse(r.stdout);
    try {
      const victim = state.processes.find((p) => p.name === 'replica-2');
      const traffic = closedLoop({ url: `${state.url}/ping`, concurrency: 4, durationMs: 5000 });
      await new Promise((res) => setTimeout(res, 1500));
      process.kill(victim.pid, 'SIGKILL');
      const result = await traffic;
      const failed = Object.values(result.errors).reduce((a, b) => a + b, 0) + (result.statuses['502'] || 0);
      expect(failed).toBeLessThanOrEqual(5);
      expect(result.completed).toBeGreaterThan(500);

      // pm2 restarts it: the replica's own port answers again, from a new pid.
      const deadline = Date.now() + 15000;
      let health = null;
      while (!health && Date.now() < deadline) {
        health = await get(`http://127.0.0.1:${state.ports.replicas[1]}/healthz`).then(
          (h) => JSON.parse(h.body),
          () => null,
        );
        if (!health) await new Promise((res) => setTimeout(res, 200));
      }
      expect(health).toMatchObject({ instance: 'replica-2' });
      expect(health.pid).not.toBe(victim.pid);
      const status = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
      // status reads pm2's pid file (never pm2 itself): the new process, shown as restarted.
      expect(status.live.find((p) => p.name === 'replica-2')).toMatchObject({
        pid: health.pid,
        status: 'online',
        restarted: true,
      });
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  });
});
