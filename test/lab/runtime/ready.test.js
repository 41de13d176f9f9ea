'use strict';

const net = require('node:net');
const { refusedPreload, waitHealthy } = require('../../../lab/runtime/local/ready');

// Whether a service that exited at start was refused the runtime probe the lab preloads (then
// the message says --no-probe deploys it), from its last lines: the refusal must be of the
// probe's file, not of one of the service's own.
test("Node 20's permission model refusing the preloaded probe: said", () => {
  const node20 = `Error: Access to this API has been restricted
    at Module._preloadModules (node:internal/modules/cjs/loader:1785:5)
  code: 'ERR_ACCESS_DENIED', permission: 'FileSystemRead', resource: '/work/main/probe/preload.js'`;
  expect(refusedPreload(node20)).toBe(true);
  // Its last lines only (the tail the lab keeps), or an app's image's copy of the probe.
  expect(refusedPreload("  code: 'ERR_ACCESS_DENIED',\n  resource: '/app/.lab-probe.cjs'")).toBe(true);
});

test("a refusal of the service's own file, or no refusal: not the probe's", () => {
  const own = `  code: 'ERR_ACCESS_DENIED', permission: 'FileSystemRead', resource: '/etc/hostname'\n}\n\nNode.js v24.21.0`;
  expect(refusedPreload(own)).toBe(false);
  expect(refusedPreload('Error: listen EADDRINUSE: address already in use :::3000')).toBe(false);
});

// A node that never answers: the message names it, its address, the limit it had and the
// last thing seen, and where its logs are; an interruption is passed on as it is.
test('a node that never answers: its address, the limit and the last error said', async () => {
  // A port nothing listens on: bound, then closed.
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
  const rt = { step: (fn) => fn(), stateDir: '/tmp/lab-x', ca: null };
  const err = await waitHealthy(rt, 'replica-1', `http://127.0.0.1:${port}/healthz`, () => true, 300).catch((e) => e);
  expect(err.code).toBe('LAB_ERR_UNHEALTHY');
  expect(err.message).toContain(`replica-1 did not become healthy: http://127.0.0.1:${port}/healthz: not ready within`);
  expect(err.message).toMatch(/within 0\.3 ?s \(last: ECONNREFUSED; logs in \/tmp\/lab-x\/logs\)/);
  const interrupted = Object.assign(new Error('interrupted'), { code: 'LAB_ERR_INTERRUPTED' });
  const stopped = { ...rt, step: () => Promise.reject(interrupted) };
  await expect(waitHealthy(stopped, 'replica-1', 'http://127.0.0.1:1/', () => true, 300)).rejects.toBe(interrupted);
});
