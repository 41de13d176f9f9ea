'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { decide, PINNED } = require('../../../lab/cli/pinned-node');
const { refusalOf } = require('../../helper');

// Which Node the lab runs on (lab/cli/pinned-node.js): the one its lock file pins, started
// again on it when another started the lab; refused, with the command that installs it, when
// it is missing and the Node at hand is too old.
const present = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pinned-')), 'node');
fs.writeFileSync(present, '');
const missing = path.join(os.tmpdir(), 'no-such-folder', 'node');

test('the pin is an exact version, and the one these tests run on', () => {
  expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
  expect(require('../../../package.json').dependencies.node).toBe(PINNED);
});

test('on the pinned Node, or told to keep any: it runs here', () => {
  expect(decide(PINNED, { binary: present, env: {} })).toBe('run');
  expect(decide('20.20.2', { binary: present, env: { LAB_NODE: 'any' } })).toBe('run');
});

test('on another Node with the pinned one installed: it runs again on the pinned one', () => {
  expect(decide('20.20.2', { binary: present, env: {} })).toEqual({ again: present });
  expect(decide('26.1.0', { binary: present, env: {} })).toEqual({ again: present });
});

test('the pinned Node missing: a Node older than 22.18 is refused with the install command, a newer one runs', () => {
  const r = refusalOf(() => decide('20.20.2', { binary: missing, env: {} }));
  expect(r.code).toBe('LAB_ERR_NODE');
  expect(r.exit).toBe(1);
  expect(r.message).toMatch(new RegExp(`runs on Node ${PINNED.replace(/\./g, '\\.')}.*Node 20\\.20\\.2.*npm ci`));
  expect(refusalOf(() => decide('22.17.9', { binary: missing, env: {} })).code).toBe('LAB_ERR_NODE');
  expect(decide('22.18.0', { binary: missing, env: {} })).toBe('run');
  expect(decide('24.1.0', { binary: missing, env: {} })).toBe('run');
});
