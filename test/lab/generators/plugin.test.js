'use strict';

const { defineGenerator, SUPPORTS, MODEL_FEATURES } = require('../../../lab/generators/plugin');
const { GENERATORS } = require('../../../lab/generators');

const base = {
  name: 'mine',
  what: 'a generator of the test',
  loop: 'open',
  drives: 'requests',
  precision: 'per request',
  plan: () => ({}),
  start: () => ({}),
};

test('a generator as a plugin: its defaults filled in, the result frozen', () => {
  const g = defineGenerator(base);
  expect(g).toMatchObject({ name: 'mine', flags: {}, supports: [] });
  expect(Object.isFrozen(g)).toBe(true);
});

test('a plugin that lacks a part, or says something unknown, is refused naming it', () => {
  expect(() => defineGenerator({ ...base, start: undefined })).toThrow('generator mine: no start');
  expect(() => defineGenerator({ ...base, loop: 'half' })).toThrow(/loop is open or closed/);
  expect(() => defineGenerator({ ...base, drives: 'cars' })).toThrow(/drives requests or participants/);
  expect(() => defineGenerator({ ...base, supports: ['teleport'] })).toThrow(/supports teleport\?/);
  expect(() => defineGenerator({ ...base, flags: { fast: { type: 'bool' } } })).toThrow(/--fast has no help line/);
});

test("the lab's own generators are plugins that declare only what exists", () => {
  for (const g of Object.values(GENERATORS)) {
    expect(g.supports.every((s) => SUPPORTS.includes(s))).toBe(true);
  }
  expect(MODEL_FEATURES.length).toBeGreaterThan(0);
});
