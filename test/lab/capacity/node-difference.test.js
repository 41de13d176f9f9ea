'use strict';

const { nodeDifference } = require('../../../lab/capacity/node-difference');

const row = (version, maxRate, broke, extra = {}) => ({
  deployment: 'single',
  node: { version },
  maxRate,
  atLeast: false,
  broke: broke === null ? null : { rate: broke },
  text: `${maxRate}/s held`,
  ...extra,
});

test('a difference only where the brackets allow no other: more, less, or none the search can tell', () => {
  const [more] = nodeDifference([row('22.23.5', 10, 11.5), row('24.21.0', 19.9, 22)]);
  expect(more).toMatchObject({ deployment: 'single', base: '22.23.5', other: '24.21.0', low: 8.4, high: 12 });
  expect(more.text).toMatch(/^single: Node 24\.21\.0 against 22\.23\.5: holds more: 8\.4 to 12\/s more; /);
  const [less] = nodeDifference([row('24.21.0', 19.9, 22), row('22.23.5', 10, 11.5)]);
  expect(less).toMatchObject({ low: -12, high: -8.4 });
  expect(less.text).toMatch(/holds less: 8\.4 to 12\/s less/);
  // Overlapping brackets: the verified rates differ (49.9 and 52.5) but nothing is claimed.
  const [none] = nodeDifference([row('22.23.5', 49.9, 55), row('24.21.0', 52.5, 55)]);
  expect(none).toMatchObject({ low: -2.5, high: 5.1 });
  expect(none.text).toMatch(/no difference the search can tell \(between -2\.5 and \+5\.1\/s/);
});

test('"at least" has no upper end; a version with no capacity gives no difference; deployments apart', () => {
  const [open] = nodeDifference([row('22.23.5', 10, 11.5), row('24.21.0', 40, null, { atLeast: true })]);
  expect(open).toMatchObject({ low: 28.5, high: null });
  expect(open.text).toMatch(/holds more: at least 28\.5\/s more/);
  const [gone] = nodeDifference([row('22.23.5', null, 5, { text: 'the service crashed' }), row('24.21.0', 10, 11)]);
  expect(gone).toMatchObject({ low: null, high: null });
  expect(gone.text).toMatch(/no difference to give, Node 22\.23\.5 has no capacity here \(the service crashed\)/);
  const rows = [row('22.23.5', 10, 11), row('24.21.0', 10, 11), { ...row('22.23.5', 5, 6), deployment: 'multi' }];
  expect(nodeDifference(rows).map((d) => d.deployment)).toEqual(['single']);
  expect(nodeDifference([{ deployment: 'single', maxRate: 3 }])).toEqual([]);
});

test("a version's row: the Node asked, and the versions its own levels' processes reported", () => {
  const { nodeRow } = require('../../../lab/capacity/node-difference');
  const seen = [
    { deployment: 'single on Node 22.23.5', nodeVersions: ['22.23.5'] },
    { deployment: 'single on Node 22.23.5' },
    { deployment: 'single on Node 24.21.0', nodeVersions: ['24.21.0'] },
  ];
  const node = { spec: '22', version: '22.23.5', binary: '/x' };
  expect(nodeRow(node, seen, 'single on Node 22.23.5')).toEqual({
    spec: '22',
    version: '22.23.5',
    reported: ['22.23.5'],
  });
  expect(nodeRow(node, seen, 'multi on Node 22.23.5').reported).toEqual([]);
});
