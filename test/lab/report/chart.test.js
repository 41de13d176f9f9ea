'use strict';

// A chart as the page carries it: its data in one attribute, escaped; the library inlined
// once per page that has charts, with its licence, and not on pages without.
const { lineChart, align } = require('../../../lab/report/chart');
const page = require('../../../lab/report/page');
const { html } = require('../../../lab/report/html');
const { chartSpecs } = require('../../helper');

const specOf = (markup) => chartSpecs(markup)[0];

test('series are aligned on one x axis, null where a series has no point; values rounded', () => {
  expect(
    align([
      {
        points: [
          [0, 1],
          [1, 2.123456789],
        ],
      },
      {
        points: [
          [1, 5],
          [2, NaN],
          [3, 7],
        ],
      },
    ]),
  ).toEqual([
    [0, 1, 2, 3],
    [1, 2.1235, null, null],
    [null, 5, null, 7],
  ]);
});

test('a chart is a figure with its title as text and its data as escaped JSON', () => {
  const hostile = '</script><img src=x onerror=alert(1)>"\'';
  const out = String(
    lineChart(
      [
        {
          name: hostile,
          points: [
            [0, 1],
            [1, 3],
          ],
          axis: 'right',
          dashed: true,
        },
      ],
      {
        title: `rate ${hostile}`,
        xLabel: 'time',
        time: true,
        markers: [
          { x: 1, label: 'phase 2' },
          { x: NaN, label: 'dropped' },
        ],
        bands: [{ from: 0.5, to: 1, label: '3 failed' }],
      },
    ),
  );
  expect(out).not.toContain('<img');
  expect(out).not.toContain('</script>');
  expect(out).toMatch(/^<figure class="chart" data-points="2" data-chart="/);
  expect(out).toContain(`<figcaption>rate &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#39;</figcaption>`);
  const spec = specOf(out);
  expect(spec.series).toEqual([
    { name: hostile, color: '#1f77b4', axis: 'right', dashed: true, dots: false, scatter: false },
  ]);
  expect(spec.time).toBe(true);
  expect(spec.markers).toEqual([{ x: 1, label: 'phase 2' }]);
  expect(spec.bands).toEqual([{ from: 0.5, to: 1, label: '3 failed' }]);
  expect(spec.data).toEqual([
    [0, 1],
    [1, 3],
  ]);
});

test('the chart library is inlined once in a page with charts, with its licence, and not in a page without', () => {
  const chart = lineChart([{ name: 'a', points: [[0, 1]] }], { title: 'one' });
  const two = page('p', html`${chart}${chart}`);
  expect(
    two.match(/uPlot 1\.6\.\d+, https:\/\/github\.com\/leeoniya\/uPlot, \(c\) Leon Sorokin, MIT licence/g),
  ).toHaveLength(1);
  expect(two.match(/window\.labCharts = /g)).toHaveLength(1);
  // Nothing fetched: no script or stylesheet from elsewhere.
  expect(two).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  const none = page('p', html`<p>no chart</p>`);
  expect(none).not.toContain('uPlot');
  // The live dashboard's frame asks for it before any chart is there.
  expect(page('live', html`<div id="live"></div>`, null, { charts: true })).toContain('window.labCharts = ');
});
