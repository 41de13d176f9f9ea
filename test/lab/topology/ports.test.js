'use strict';

const net = require('node:net');
const { planPorts, assertFree } = require('../../../lab/topology/ports');

describe('ports', () => {
  test('one base gives every role its port, replicas after the fixed ones', () => {
    const p = planPorts(8080, 3);
    expect(p).toMatchObject({
      nginx: 8080,
      bbox1: 8081,
      bbox2: 8082,
      statsd: 8083,
      carbon: 8085,
      replicas: [8090, 8091, 8092],
    });
    expect(() => planPorts(80, 1)).toThrow(/port base/);
    expect(() => planPorts(32760, 3)).toThrow(/port base/);
  });

  test('a busy port is named with its role', async () => {
    const s = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => s.once('listening', r));
    const { port } = s.address();
    await expect(assertFree([{ port, role: 'replica-2' }], '127.0.0.1')).rejects.toThrow(
      new RegExp(`port ${port} \\(replica-2\\) is already in use`),
    );
    s.close();
  });
});
