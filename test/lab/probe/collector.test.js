'use strict';

const dgram = require('node:dgram');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startCollector, statsdLines } = require('../../../lab/probe/collector');
const { udpFree } = require('./free-port');

const send = (port, text) =>
  new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.send(text, port, '127.0.0.1', () => {
      s.close();
      resolve();
    });
  });
const settle = () => new Promise((r) => setTimeout(r, 150));

test('keeps and writes the datagrams of the probe, counts the rest, and says when its port is held', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-collector-'));
  const port = await udpFree();
  const forwarded = [];
  const c = await startCollector({
    listen: [{ host: '127.0.0.1', port }],
    file: path.join(dir, 'runtime.jsonl'),
    maxDatagrams: 2,
    onDatagram: (d) => forwarded.push(d),
  });
  try {
    const good = { v: 1, node: 'replica-1', pid: 9, t: 1, elu: [1, 2], d: [0, 0, 0, 0, {}] };
    await send(port, JSON.stringify(good));
    await send(port, 'not json');
    await send(port, JSON.stringify({ ...good, v: 99 }));
    await send(port, JSON.stringify({ ...good, pad: 'x'.repeat(5000) }));
    await send(port, JSON.stringify(good));
    await send(port, JSON.stringify(good));
    await settle();
    expect(c.stats()).toEqual({ received: 6, rejected: 3, dropped: 1, kept: 2 });
    expect(c.datagrams[0]).toMatchObject({ node: 'replica-1', pid: 9 });
    expect(c.datagrams[0].at).toBeGreaterThan(0);
    expect(forwarded).toHaveLength(2);
    const held = await startCollector({ listen: [{ host: '127.0.0.1', port }] });
    expect(held.error).toMatch(new RegExp(`the runtime probe's port ${port} on 127.0.0.1: in use`));
  } finally {
    await c.close();
  }
  expect(fs.readFileSync(path.join(dir, 'runtime.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("StatsD gauges per node and process, as the dashboard's panels read them", () => {
  const lines = statsdLines('lab.run1', {
    node: 'replica-1',
    pid: 4,
    role: 'worker',
    w: 2,
    elu: [250, 750],
    d: [10, 9, 1, 8.5, {}],
    gc: { minor: [2, 3.25] },
    heap: [12.5, 20],
  });
  expect(lines).toEqual([
    'lab.run1.node.replica-1.loop.worker-2.utilization:0.25|g',
    'lab.run1.node.replica-1.loop.worker-2.delay_p99_ms:8.5|g',
    'lab.run1.node.replica-1.loop.worker-2.gc_ms:3.3|g',
    'lab.run1.node.replica-1.loop.worker-2.heap_used_mib:12.5|g',
  ]);
});
