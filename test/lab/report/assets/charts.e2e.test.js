'use strict';

const fs = require('node:fs');
const path = require('node:path');
/* global document, window */
const { browserTest, launch, exploreChart, roundTicks } = require('../../../browser');
const { lineChart } = require('../../../../lab/report/chart');
const page = require('../../../../lab/report/page');
const { html } = require('../../../../lab/report/html');
const { tmpStateDir } = require('../../../helper');

// The live page's update as a reader meets it: a chart zoomed by the reader, then new data in
// a new figure (the dashboard's every second). The chart keeps its zoom and the new figure
// says its ticks (a read between the update and the next axis redraw once found none).
const chart = (n) =>
  String(
    lineChart([{ name: 'rate', points: Array.from({ length: n }, (_, i) => [i, 10 + (i % 7)]) }], {
      title: 'rate',
      xLabel: 'time',
      time: true,
    }),
  );

browserTest(
  'a zoomed live chart moved into the next update keeps its zoom, and its figure says its ticks',
  async () => {
    const file = path.join(tmpStateDir(), 'live.html');
    fs.writeFileSync(file, page('live', html`<div id="live"></div>`, null, { charts: true }));
    const browser = await launch();
    try {
      const p = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await p.goto(`file://${file}`);
      await p.evaluate((h) => window.labCharts.update(document.getElementById('live'), h), chart(120));
      const explored = await exploreChart(p, 0);
      expect(roundTicks(explored.ticksX)).toBe(true);
      // Zoomed again (exploreChart's double-click showed it all), then the next update.
      const box = await p.locator('figure.chart .u-over').boundingBox();
      await p.mouse.move(box.x + box.width / 3, box.y + box.height / 2);
      await p.mouse.down();
      await p.mouse.move(box.x + (box.width * 2) / 3, box.y + box.height / 2, { steps: 5 });
      await p.mouse.up();
      const after = await p.evaluate((h) => {
        const live = document.getElementById('live');
        const before = live.querySelector('figure.chart');
        window.labCharts.update(live, h);
        const fig = live.querySelector('figure.chart');
        const c = window.labCharts.charts.get(fig);
        return {
          moved: fig !== before && Boolean(c),
          span: [c.plot.scales.x.min, c.plot.scales.x.max],
          ticksX: fig.dataset.ticksX,
          ticksY: fig.dataset.ticksY,
        };
      }, chart(121));
      expect(after.moved).toBe(true);
      // The reader's zoom (the middle third of 0..119) survives the new data.
      expect(after.span[1] - after.span[0]).toBeLessThan(119 * 0.6);
      expect({ x: after.ticksX, round: roundTicks(after.ticksX ?? '') }).toEqual({ x: after.ticksX, round: true });
      expect(roundTicks(after.ticksY ?? '')).toBe(true);
    } finally {
      await browser.close();
    }
  },
);
