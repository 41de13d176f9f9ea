'use strict';

const { template, funcsFor } = require('../../../lab/scenario/template');
// Artillery's own template function, the reference: the lab's engines must render what
// Artillery renders (its engine_util, from the artillery package in the lock file, run in a
// child Node: ../../artillery-reference.js).
const { artilleryReference } = require('../../artillery-reference');

const vars = {
  url: '/a',
  n: 5,
  f: 1.5,
  o: { a: 1 },
  list: [1, 'two'],
  z: 0,
  no: false,
  nil: null,
  e: '',
  user: { id: 7, name: 'ann' },
  items: [{ name: 'tea' }],
  'with-dash': 'd',
};
const CASES = [
  '{{{ url }}}',
  '{{url}}',
  '{{ n }}',
  'x{{ n }}y',
  '{{ f }}',
  '{{ o }}',
  'a {{ o }}',
  '{{ list }}',
  'l={{ list }}',
  '{{ missing }}',
  'a{{ missing }}b',
  '{{ z }}',
  '{{ no }}',
  '{{ nil }}',
  'x{{ nil }}',
  '{{ e }}',
  '{{ user.id }}',
  '/u/{{ user.name }}/{{ user.id }}',
  '/i/{{ items[0].name }}',
  "{{ items[0]['name'] }}",
  '{{ with-dash }}',
  '{{ url }}{{ url }}{{{ n }}}',
  'no template',
  '{ single }',
  '{{ $nope() }}',
  'x {{ $nope(1) }} y',
  { k: '{{ n }}', '{{ url }}': ['{{ user.id }}', { deep: '{{ o }}' }], plain: 3 },
  ['{{ n }}', 'x{{ n }}', 7, null],
  42,
  null,
  undefined,
];

// Every case through Artillery at once (one child Node), in CASES' order.
const THEIRS = artilleryReference(
  'template',
  CASES.map((value) => ({ value, vars })),
);

test.each(CASES.map((c, i) => [JSON.stringify(c) ?? 'undefined', c, i]))(
  '%s renders as Artillery renders it',
  (_, c, i) => {
    const ours = template(c, { vars, funcs: funcsFor(vars) });
    expect(ours).toEqual(THEIRS[i]);
  },
);

test('functions: the first call is replaced by its result as text, then the string rendered again', () => {
  const ctx = { vars, funcs: funcsFor(vars) };
  for (let i = 0; i < 50; i++) {
    const v = template('{{ $randomNumber(1, 3) }}', ctx);
    expect(['1', '2', '3']).toContain(v);
  }
  expect(template('id-{{ $randomString(6) }}', ctx)).toMatch(/^id-[A-Za-z0-9]{6}$/);
  expect(template('{{ $randomNumber(5, 5) }}/{{ n }}', ctx)).toBe('5/5');
  // A known function, with Artillery's own implementation of it, gives the same shape.
  const fixed = { $f: () => 9 };
  const [theirs] = artilleryReference('template', [
    { value: 'a{{ $f() }}b{{ n }}', vars, funcs: { $f: String(fixed.$f) } },
  ]);
  expect(template('a{{ $f() }}b{{ n }}', { vars, funcs: fixed })).toBe(theirs);
});
