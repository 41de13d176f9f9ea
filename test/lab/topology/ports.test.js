'use strict';

const net = require('node:net');
const { planPorts, assertFree } = require('../../../lab/topology/ports');

describe('ports', () => {
  test('one base gives every role its port, replicas after the fixed ones', () => {
    const p = planPorts(8080, 3);
    expect(p).toMatchObject({
      entry: 8080,
      bbox1: 8081,
      bbox2: 8082,
      statsd: 8083,
      carbon: 8085,
      replicas: [8090, 8091, 8092],
    });
    expect(() => planPorts(80, 1)).toThrow(/--port-base "80": an integer from 1024/);
    expect(() => planPorts(32760, 3)).toThrow(/--port-base "32760": an integer from 1024/);
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

// An address that is not this machine's is said to be so, not reported as a port in use
// (issue 44: LAB_HOST the manager VM's address on the cluster read "port 8083 (statsd) is
// already in use"). 192.0.2.1 is TEST-NET-1: never a machine's own.
test('listening on an address that is not this machine is LAB_ERR_NOT_LOCAL, a held port LAB_ERR_PORT_IN_USE', async () => {
  await expect(assertFree([{ port: 18083, role: 'statsd', udp: true }], '192.0.2.1')).rejects.toMatchObject({
    code: 'LAB_ERR_NOT_LOCAL',
    message: expect.stringContaining('192.0.2.1 is not an address of this machine'),
  });
  await expect(assertFree([{ port: 18084, role: 'statsd admin' }], '192.0.2.1')).rejects.toMatchObject({
    code: 'LAB_ERR_NOT_LOCAL',
  });
  const held = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => held.once('listening', r));
  try {
    await expect(assertFree([{ port: held.address().port, role: 'x' }], '127.0.0.1')).rejects.toMatchObject({
      code: 'LAB_ERR_PORT_IN_USE',
    });
  } finally {
    held.close();
  }
});
