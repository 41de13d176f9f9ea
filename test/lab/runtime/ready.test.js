'use strict';

const { refusedPreload } = require('../../../lab/runtime/local/ready');

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
