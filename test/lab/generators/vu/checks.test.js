'use strict';

const { captureOrMatch } = require('../../../../lab/generators/vu/checks');
// Artillery's own captureOrMatch, the reference (its engine_util, run in a child Node:
// ../../../artillery-reference.js): whether the virtual user fails ("Failed capture or match")
// and the variables it sets when it does not.
const { artilleryReference } = require('../../../artillery-reference');

const reference = (specs, res, strictDefault = true) =>
  artilleryReference('captureOrMatch', [{ specs, res, strictDefault }])[0];

const json = (body) => ({ headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) });
const CASES = [
  ['a json capture', { capture: [{ json: '$.id', as: 'id' }] }, json({ id: 7 })],
  ['a missing json capture', { capture: [{ json: '$.nope', as: 'x' }] }, json({ id: 7 })],
  ['a missing one, not strict', { capture: [{ json: '$.nope', as: 'x', strict: false }] }, json({ id: 7 })],
  [
    'a json capture of a body that is not json',
    { capture: [{ json: '$.id', as: 'id' }] },
    { headers: {}, text: '<html>' },
  ],
  [
    'a nested path',
    { capture: [{ json: "$.items[1]['name']", as: 'n' }] },
    json({ items: [{ name: 'a' }, { name: 'b' }] }),
  ],
  [
    'a filter path',
    { capture: [{ json: '$.items[?(@.ok)].name', as: 'n' }] },
    json({ items: [{ name: 'a' }, { name: 'b', ok: true }] }),
  ],
  ['an empty string is no value', { capture: [{ json: '$.e', as: 'e' }] }, json({ e: '' })],
  ['a null is a value', { capture: [{ json: '$.e', as: 'e' }] }, json({ e: null })],
  [
    'a regexp with a group',
    { capture: [{ regexp: 'id=(\\d+)', group: 1, as: 'id' }] },
    { headers: {}, text: 'x id=42 y' },
  ],
  ['a regexp with flags', { capture: [{ regexp: 'ID=(\\d+)', flags: 'i', as: 'id' }] }, { headers: {}, text: 'id=42' }],
  ['a regexp that misses', { capture: [{ regexp: 'nope', as: 'x' }] }, { headers: {}, text: 'id=42' }],
  ['a header', { capture: [{ header: 'x-token', as: 't' }] }, { headers: { 'x-token': 'abc' }, text: '' }],
  ['a missing header', { capture: [{ header: 'x-token', as: 't' }] }, { headers: {}, text: '' }],
  [
    'a selector',
    { capture: [{ selector: 'a.next', attr: 'href', as: 'h' }] },
    { headers: {}, text: '<a class="next" href="/p2">n</a>' },
  ],
  ['a match that holds', { match: [{ json: '$.ok', value: true }] }, json({ ok: true })],
  ['a match that fails', { match: [{ json: '$.ok', value: true }] }, json({ ok: false })],
  ['a failing match, not strict', { match: [{ json: '$.ok', value: true, strict: false }] }, json({ ok: false })],
  [
    'one capture fails: none is set',
    {
      capture: [
        { json: '$.id', as: 'id' },
        { json: '$.no', as: 'no' },
      ],
    },
    json({ id: 1 }),
  ],
];

test.each(CASES)('%s: the virtual user fails, or not, with the variables Artillery sets', (_, specs, res) => {
  const ctx = { vars: {}, funcs: {} };
  const ours = captureOrMatch(specs, res, ctx);
  const theirs = reference(specs, res);
  expect(ours.failed).toBe(theirs.failed);
  if (!theirs.failed) expect(ctx.vars).toEqual(theirs.vars);
  else expect(ctx.vars).toEqual({});
});

test('config.defaults.strictCapture: false lets a missing capture go', () => {
  const specs = { capture: [{ json: '$.nope', as: 'x' }] };
  const ours = captureOrMatch(specs, json({}), { vars: {}, funcs: {} }, { strictDefault: false });
  expect(ours.failed).toBe(reference(specs, json({}), false).failed);
  expect(ours.failed).toBe(false);
});
