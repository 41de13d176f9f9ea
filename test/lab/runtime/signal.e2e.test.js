'use strict';

const { get, lab, freePortBase, tmpStateDir, until, participant, jsonOf } = require('../../helper');

async function deploy(name, extra = []) {
  const stateDir = tmpStateDir();
  const base = await freePortBase();
  const r = await lab(['deploy', name, '--port-base', String(base), '--state-dir', stateDir, '--json', ...extra]);
  if (r.code !== 0) throw new Error(`deploy ${name} failed (${r.code}): ${r.stderr}`);
  const state = jsonOf(r);
  return { stateDir, state, url: state.url };
}

// A participant: connects, joins, and keeps what it receives.

// One room whose participants land on different workers and replicas: the hub (hub/) shares
// the rooms, so every relay reaches its peer wherever it is.
describe.each([
  ['multi-replicated', [], 'nginx (L7) upgrading WebSockets'],
  ['replicated', ['--balancer', 'node'], "the lab's own balancer piping upgrades"],
  ['replicated', ['--balancer', 'nginx-l4'], 'nginx (L4) passing TCP through'],
])('signaling through %s %j: %s', (name, extra) => {
  let d;
  beforeAll(async () => {
    d = await deploy(name, extra);
  });
  afterAll(async () => {
    if (d) await lab(['down', '--state-dir', d.stateDir]);
  });

  test('one room across processes: joined, peer lists, relays and leaves reach every peer', async () => {
    const N = 9;
    // /room gives the same id to N consecutive callers, whichever process answers each.
    const rooms = new Set();
    for (let i = 0; i < N; i++) rooms.add(JSON.parse((await get(`${d.url}/room?size=${N}`)).body).room);
    expect(rooms.size).toBe(1);
    const [room] = rooms;
    const peers = [];
    try {
      for (let i = 0; i < N; i++) peers.push(await participant(d.url, room));
      // Peer ids name their process: instance.worker.n. Several processes hold this room.
      const processes = new Set(peers.map((p) => p.id.split('.').slice(0, 2).join('.')));
      expect(processes.size).toBeGreaterThan(1);
      // The last to join was told of all the others.
      expect(peers[N - 1].got.find((m) => m.type === 'joined').peers.sort()).toEqual(
        peers
          .slice(0, N - 1)
          .map((p) => p.id)
          .sort(),
      );
      // Everyone offers to the first; the first answers everyone.
      for (const p of peers.slice(1)) p.ws.send(JSON.stringify({ type: 'offer', to: peers[0].id, data: { n: p.id } }));
      expect(await until(() => peers[0].got.filter((m) => m.type === 'offer').length === N - 1)).toBe(true);
      for (const p of peers.slice(1)) peers[0].ws.send(JSON.stringify({ type: 'answer', to: p.id, data: 1 }));
      expect(await until(() => peers.slice(1).every((p) => p.got.some((m) => m.type === 'answer')))).toBe(true);
      // A leave reaches every other process.
      const leaver = peers.pop();
      leaver.ws.close();
      expect(
        await until(() => peers.every((p) => p.got.some((m) => m.type === 'peer-left' && m.id === leaver.id))),
      ).toBe(true);
    } finally {
      for (const p of peers) p.ws.close();
    }
  });
});
