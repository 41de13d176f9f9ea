'use strict';

const { KINDS, kindOf } = require('../../../../lab/kinds');

// Every kind that runs on this host has a host the local runtime asks (program, paths,
// check), whatever its program. The lab's node balancer has no program of its own: asking for
// it must answer null, not fail (a deploy with --balancer node once died there with
// "unexpected failure": the host asked apt for a kind's undefined binary).
describe("a local kind's host", () => {
  const local = Object.values(KINDS).filter((k) => k.runtimes.includes('local') && k.host);

  test.each(local.map((k) => [k.name, k]))('%s: program, paths and check are there', (name, k) => {
    for (const part of ['program', 'paths', 'check']) expect(typeof k.host[part]).toBe('function');
    if (k.host.daemon) for (const part of ['start', 'stop', 'owned']) expect(typeof k.host[part]).toBe('function');
  });

  test('a kind with no program of its own (node) has none to find: null, no apt, no error', async () => {
    const node = kindOf('node');
    expect(node.bin).toBeUndefined();
    await expect(node.host.program(() => {})).resolves.toBeNull();
    const paths = node.host.paths('/tmp/state', { name: 'balancer' });
    expect(paths.prefix).toBe('/tmp/state/nodes/balancer');
  });
});
