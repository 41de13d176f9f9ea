'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { mark, restartsSince } = require('../../../lab/runtime/pm2-restarts');

// pm2's own log, as its daemon writes it (seen in a state folder's pm2/pm2.log).
const lines = (n, name = 'replica-1', code = 3) =>
  Array.from(
    { length: n },
    () =>
      `2026-11-25T11:12:58: PM2 log: App [${name}:0] exited with code [${code}] via signal [SIGINT]\n2026-11-25T11:12:58: PM2 log: App [${name}:0] starting in -fork mode-\n`,
  ).join('');

test('exits after the mark are counted per app, with their codes; those before are not', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-'));
  const log = path.join(home, 'pm2.log');
  fs.writeFileSync(log, `${lines(4)}2026-11-25T11:12:56: PM2 log: App [bbox:1] online\n`);
  const m = mark(home);
  fs.appendFileSync(log, lines(2) + lines(1, 'replica-2', 1) + lines(1, 'replica-2', 0));
  expect(restartsSince(home, m)).toEqual({
    'replica-1': { restarts: 2, exitCodes: { 3: 2 } },
    'replica-2': { restarts: 2, exitCodes: { 1: 1, 0: 1 } },
  });
  // A log rotated meanwhile (smaller than the mark) is read whole.
  fs.writeFileSync(log, lines(1));
  expect(restartsSince(home, m)['replica-1'].restarts).toBe(1);
});

test('a process killed by a signal (pm2 writes code 0 for it) is counted as a kill by that signal', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-'));
  const kill = (sig) =>
    `2026-11-25T11:12:58: PM2 log: App [redis:3] exited with code [0] via signal [${sig}]\n2026-11-25T11:12:58: PM2 log: App [redis:3] starting in -fork mode-\n`;
  fs.writeFileSync(path.join(home, 'pm2.log'), kill('SIGKILL') + kill('SIGKILL') + lines(1, 'redis', 0));
  expect(restartsSince(home, 0)).toEqual({ redis: { restarts: 3, exitCodes: { 0: 1 }, kills: { SIGKILL: 2 } } });
});

test('no log: no restarts counted, and no error', () => {
  expect(mark('/no/such/home')).toBe(0);
  expect(restartsSince('/no/such/home', 0)).toEqual({});
});

// A rollout replaces replicas on purpose: pm2 says "Stopping app" before each exit (seen in a
// state folder's pm2.log after --rollout-at). Those are no restarts; a crash after is one.
test('an app the lab stopped on purpose is no restart; one that exited on its own after is', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-'));
  const stopped = (name, id) =>
    `2026-11-28T03:42:01: PM2 log: Deleting process ${id}\n2026-11-28T03:42:01: PM2 log: Stopping app:${name} id:${id}\n2026-11-28T03:42:01: PM2 log: App [${name}:${id}] exited with code [0] via signal [SIGTERM]\n2026-11-28T03:42:01: PM2 log: pid=12919 msg=process tree killed (1 pids)\n`;
  fs.writeFileSync(
    path.join(home, 'pm2.log'),
    stopped('replica-1', 0) + stopped('replica-2', 1) + lines(1, 'replica-2', 1),
  );
  expect(restartsSince(home, 0)).toEqual({ 'replica-2': { restarts: 1, exitCodes: { 1: 1 } } });
});
