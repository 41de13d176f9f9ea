'use strict';

const { render, renderDeep, namesIn } = require('../../../lab/scenario/template');
const { parsePath, capture } = require('../../../lab/scenario/capture');
const { parseCsv, rowPicker } = require('../../../lab/scenario/payload');

test("templates render a virtual user's variables; a lone variable keeps its type in JSON", () => {
  expect(render('/api/cart/{{ cartId }}?u={{user}}', { cartId: 7, user: 'ann' })).toBe('/api/cart/7?u=ann');
  expect(render('/x/{{ missing }}', {})).toBe('/x/');
  expect(renderDeep({ id: '{{ id }}', name: 'n-{{ id }}', list: ['{{ id }}'] }, { id: 3 })).toEqual({
    id: 3,
    name: 'n-3',
    list: [3],
  });
  expect(render('{{ $randomNumber(5, 5) }}', {})).toBe('5');
  expect(namesIn('{{ a }} and {{ $uuid() }}')).toEqual(['a', '$uuid']);
});

test('captures from JSON answers by a plain path', () => {
  expect(parsePath('$.items[0].id')).toEqual(['items', 0, 'id']);
  expect(parsePath("$['a b'].c")).toEqual(['a b', 'c']);
  expect(parsePath('$..id')).toBeNull();
  const vars = {};
  expect(capture('{"items":[{"id":42}]}', [{ keys: ['items', 0, 'id'], as: 'id' }], vars)).toEqual([]);
  expect(vars).toEqual({ id: 42 });
  expect(capture('not json', [{ keys: ['x'], as: 'x' }], vars)).toEqual(['x']);
});

test('a CSV payload: quoted fields, rows taken at random or in turn', () => {
  expect(parseCsv('a,b\n"x, y","say ""hi"""\r\n3,4')).toEqual([
    ['a', 'b'],
    ['x, y', 'say "hi"'],
    ['3', '4'],
  ]);
  const next = rowPicker({ fields: ['u'], order: 'sequence', rows: [['a'], ['b']] });
  expect([next(), next(), next()]).toEqual([{ u: 'a' }, { u: 'b' }, { u: 'a' }]);
});
