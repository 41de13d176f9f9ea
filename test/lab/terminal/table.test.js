'use strict';

const table = require('../../../lab/terminal/table');

test('rows as an aligned table: titles first, missing values as dashes, fractions to one place', () => {
  const text = table(
    [
      { name: 'balancer', pid: 4242, mem: 12.345 },
      { name: 'replica-1', pid: null, mem: 80 },
    ],
    [
      ['name', 'process'],
      ['pid', 'pid'],
      ['mem', 'MiB'],
    ],
  );
  expect(text.split('\n')).toEqual(['process    pid   MiB', 'balancer   4242  12.3', 'replica-1  -     80']);
});
