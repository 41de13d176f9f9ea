'use strict';

const { lab, ownPlace, forDeploy, stateOf, get, jsonOf } = require('../../helper');
const closedLoop = require('../../../lab/generators/closed-loop-client');

// `deploy replicated` in a place of its own: its output and its state folder.
async function deployReplicated() {
  const place = forDeploy(await ownPlace());
  return { r: await lab(['deploy', 'replicated', ...place, '--json']), stateDir: stateOf(place) };
}

describe('replica failure behind nginx', () => {
  test('killing a replica under steady /ping traffic costs at most a handful of requests; pm2 brings it back', async () => {
    const { r, stateDir } = await deployReplicated();
    expect(r.code).toBe(0);
    const state = jsonOf(r);
    try {
      const victim = state.processes.find((p) => p.name === 'replica-2');
      const traffic = closedLoop({ url: `${state.url}/ping`, concurrency: 4, durationMs: 5000 });
      await new Promise((res) => setTimeout(res, 1500));
      process.kill(victim.pid, 'SIGKILL');
      const result = await traffic;
      const failed = Object.values(result.errors).reduce((a, b) => a + b, 0) + (result.statuses['502'] || 0);
      expect(failed).toBeLessThanOrEqual(5);
      // (Traffic enough that 5 failed is a handful: at least 100 answers in the 5 s. A fixed 500
      // read 184 in CI, this process's loop slowed by five other files.)
      expect(result.completed).toBeGreaterThanOrEqual(100);

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

  // The hub is a helper of signaling only: its crash costs plain HTTP nothing (it once took
  // every replica down with it, and /ping got 502s), and rooms work again once pm2 has
  // restarted it.
  test('the hub crashing under /ping traffic: every /ping answers 200, no replica restarts, rooms work again', async () => {
    const WebSocket = require('ws');
    const { r, stateDir } = await deployReplicated();
    expect(r.code).toBe(0);
    const state = jsonOf(r);
    try {
      const hub = state.processes.find((p) => p.name === 'hub');
      const replicas = state.processes.filter((p) => p.name.startsWith('replica-'));
      const traffic = closedLoop({ url: `${state.url}/ping`, concurrency: 2, durationMs: 6000 });
      await new Promise((res) => setTimeout(res, 1000));
      process.kill(hub.pid, 'SIGKILL');
      const result = await traffic;
      expect({ errors: result.errors, statuses: result.statuses }).toEqual({
        errors: {},
        statuses: { 200: result.completed },
      });
      const status = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
      for (const rep of replicas) {
        expect(status.live.find((p) => p.name === rep.name)).toMatchObject({ pid: rep.pid, restarted: false });
      }
      expect(status.live.find((p) => p.name === 'hub')).toMatchObject({ status: 'online', restarted: true });
      // Three participants of one room (spread over the replicas by nginx): each relays to
      // each once the replicas are back on the new hub.
      const ws = `${state.url.replace('http', 'ws')}/signal`;
      const room = `after-${Date.now()}`;
      const peers = [];
      const deadline = Date.now() + 15000;
      for (let i = 0; i < 3; i++) {
        for (;;) {
          const p = await joinRoom(WebSocket, ws, room);
          if (p.id) {
            peers.push(p);
            break;
          }
          p.ws.close();
          if (Date.now() > deadline) throw new Error(`no join after the hub restart: ${JSON.stringify(p.got)}`);
          await new Promise((res) => setTimeout(res, 250));
        }
      }
      for (const a of peers)
        for (const b of peers) if (a !== b) a.ws.send(JSON.stringify({ type: 'offer', to: b.id, data: a.id }));
      const end = Date.now() + 5000;
      const offers = () => peers.map((p) => p.got.filter((m) => m.type === 'offer').length);
      while (offers().some((n) => n < 2) && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(offers()).toEqual([2, 2, 2]);
      for (const p of peers) p.ws.close();
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  });
});

// A participant that joins `room`: { ws, got, id } (id null when the join was refused).
async function joinRoom(WebSocket, url, room) {
  const ws = new WebSocket(url);
  const got = [];
  ws.on('message', (d) => got.push(JSON.parse(String(d))));
  await new Promise((res, rej) => {
    ws.once('open', res);
    ws.once('error', rej);
  });
  ws.send(JSON.stringify({ type: 'join', room }));
  for (let i = 0; i < 100 && !got.some((m) => m.type === 'joined' || m.type === 'error'); i++)
    await new Promise((res) => setTimeout(res, 20));
  return { ws, got, id: got.find((m) => m.type === 'joined')?.id ?? null };
}
