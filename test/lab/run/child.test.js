'use strict';

const { EventEmitter } = require('node:events');
const { reasonOf, interruptChild } = require('../../../lab/run/child');

test("a child's reason: the lab's error line, else its last line, else how it exited", () => {
  const tail = 'deploying single\nlab: port 8080 is in use [LAB_ERR_PORT_IN_USE]\nstopping\n';
  expect(reasonOf(tail, 1)).toBe('port 8080 is in use [LAB_ERR_PORT_IN_USE]');
  expect(reasonOf('one\n  two  \n\n', 1)).toBe('two');
  expect(reasonOf('', 'SIGKILL')).toBe('exited SIGKILL');
  // the last error line wins over an earlier one
  expect(reasonOf('Error: first\nlab: second [LAB_ERR_X]\n', 1)).toBe('second [LAB_ERR_X]');
});

// A child as interruptChild sees one: its exit state, kill and its exit event.
function fakeChild({ exited = false } = {}) {
  const c = new EventEmitter();
  c.exitCode = exited ? 0 : null;
  c.signalCode = null;
  c.signals = [];
  c.kill = (sig) => {
    c.signals.push(sig);
    setImmediate(() => {
      c.signalCode = sig;
      c.emit('exit', null, sig);
    });
  };
  return c;
}

test('stopping a child: SIGINT and its exit waited for; nothing sent to one that has exited', async () => {
  const running = fakeChild();
  await interruptChild(running);
  expect(running.signals).toEqual(['SIGINT']);
  const gone = fakeChild({ exited: true });
  expect(interruptChild(gone)).toBeNull();
  expect(gone.signals).toEqual([]);
  expect(interruptChild(null)).toBeNull();
});
