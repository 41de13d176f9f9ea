'use strict';

// A chart of a page, as data: a <figure> whose data-chart attribute holds its series, which
// the page's one script (./assets/charts.js) draws with uPlot (./chart-assets.js inlines
// both once per page). The reader gets round ticks, every series' value under the pointer,
// drag to zoom and double-click to reset, a legend that hides and shows series, and the
// phases and failing stretches marked. A pure function of its arguments: the same data
// makes the same markup, which the live dashboard relies on to keep its charts across
// updates (a chart is known by its title).
const { esc, trusted } = require('./html');

const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
// Values travel rounded: a page of 3,600 seconds x 12 series stays small, and no reader needs
// a latency to more than a microsecond's precision.
const round = (v) => (Math.abs(v) >= 100 ? Math.round(v * 100) / 100 : Math.round(v * 1e4) / 1e4);

// The series' points aligned on one x axis (uPlot's data: [xs, ys1, ys2, ...]), null where a
// series has no point at an x.
function align(series) {
  const xs = [...new Set(series.flatMap((s) => s.points.filter((p) => finite(p[0])).map((p) => round(p[0]))))].sort(
    (a, b) => a - b,
  );
  const at = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const col = new Array(xs.length).fill(null);
    for (const [x, y] of s.points) if (finite(x) && finite(y)) col[at.get(round(x))] = round(y);
    return col;
  });
  return [xs, ...ys];
}

// series: [{ name, points: [[x, y], ...], axis: 'left' | 'right', dashed, color, dots, scatter }]
// (scatter: dots only, no line: points that are not a sequence, like one dot per second)
// o: { title, xLabel, yLabel, y2Label, xMin, xMax, yMax, y2Max, time (x is seconds: ticks in
//      s, min or h), integerX (x counts things: whole ticks), markers: [{ x, label }], bands: [{ from, to, label }] (failing stretches),
//      width, height }
function lineChart(series, o = {}) {
  const spec = {
    title: o.title || '',
    xLabel: o.xLabel || '',
    yLabel: o.yLabel || '',
    y2Label: o.y2Label || '',
    time: Boolean(o.time),
    // (x counts things, replicas: its ticks are whole numbers, never 0.5 or 1.5.)
    integerX: Boolean(o.integerX),
    xMin: finite(o.xMin) ? o.xMin : null,
    xMax: finite(o.xMax) ? o.xMax : null,
    yMax: finite(o.yMax) ? o.yMax : null,
    y2Max: finite(o.y2Max) ? o.y2Max : null,
    width: o.width || 760,
    height: o.height || 260,
    series: series.map((s, i) => ({
      name: s.name,
      color: s.color || COLORS[i % COLORS.length],
      axis: s.axis === 'right' ? 'right' : 'left',
      dashed: Boolean(s.dashed),
      dots: Boolean(s.dots),
      scatter: Boolean(s.scatter),
    })),
    data: align(series),
    markers: (o.markers || []).filter((m) => finite(m.x)).map((m) => ({ x: round(m.x), label: String(m.label ?? '') })),
    bands: (o.bands || [])
      .filter((b) => finite(b.from) && finite(b.to))
      .map((b) => ({ from: round(b.from), to: round(b.to), label: String(b.label ?? '') })),
  };
  const points = spec.data.slice(1).reduce((a, col) => a + col.filter((v) => v !== null).length, 0);
  // The title is the page's text (found, read aloud, printed), the plot the script's; the
  // JSON is escaped as an attribute value, so no value can close the tag.
  return trusted(
    `<figure class="chart" data-points="${points}" data-chart="${esc(JSON.stringify(spec))}">` +
      `<figcaption>${esc(spec.title)}</figcaption><div class="plot" style="min-height:${spec.height}px"></div>` +
      `<noscript><p class="note">This chart needs JavaScript (it is drawn in the page, nothing is fetched).</p></noscript>` +
      `</figure>`,
  );
}

module.exports = { lineChart, COLORS, align };
