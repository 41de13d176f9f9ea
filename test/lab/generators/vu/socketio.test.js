'use strict';

const { isValid, processResponse } = require('../../../../lab/generators/vu/socketio');

// What an emit's answer must hold, and how it is read, as Artillery's socketio engine reads
// it (lab/generators/vu/socketio.js).
const ctx = () => ({ vars: {}, _successCount: 0 });

test("isValid: a list equals every argument; a mapping the last (its json key aside); text is part of the last argument's, or of all with concat", () => {
  expect(isValid(['a', 1], { data: ['a', 1] })).toBe(true);
  expect(isValid(['a'], { data: ['a', 1] })).toBe(false);
  expect(isValid(['x', { v: 1 }], { data: { v: 1, json: '$.0' } })).toBe(true);
  expect(isValid([{ v: 2 }], { data: { v: 1 } })).toBe(false);
  expect(isValid(['hello', 'world!'], { data: 'world' })).toBe(true);
  expect(isValid(['world', 'hello'], { data: 'world' })).toBe(false);
  expect(isValid(['wor', 'ld'], { data: 'world', concat: true })).toBe(true);
  // (An object where text is asked: not valid, where Artillery's check would throw.)
  expect(isValid([{ a: 1 }], { data: 'a' })).toBe(false);
  // No data asked: never valid, so a response with only a capture waits for the timeout, as there.
  expect(isValid(['x'], { data: null })).toBe(false);
});

test('processResponse: data checked, then captures and matches on the arguments as JSON', () => {
  const c = ctx();
  expect(processResponse(['tok', { n: 4 }], { data: null, capture: { json: '$.1.n', as: 'n' }, match: null }, c)).toBe(
    null,
  );
  expect(c.vars.n).toBe(4);
  expect(c.vars.$).toBe('["tok",{"n":4}]');
  expect(processResponse(['tok'], { data: 'nope', capture: null, match: null }, ctx())).toBe('data is not valid');
  expect(processResponse(['pong'], { data: null, capture: null, match: { json: '$.0', value: 'ping' } }, ctx())).toBe(
    'Failed match',
  );
  expect(processResponse(['pong'], { data: null, capture: null, match: [{ json: '$.0', value: 'pong' }] }, ctx())).toBe(
    null,
  );
  // A capture that finds nothing goes on (Artillery's socketio engine fails on matches only).
  expect(processResponse(['x'], { data: null, capture: { json: '$.9.z', as: 'z' }, match: null }, ctx())).toBe(null);
});
