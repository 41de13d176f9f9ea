#!/usr/bin/env node
'use strict';

// The chart library, measured (issue 43): what it adds to a page when inlined, how long it
// takes to draw 3,600 points x 12 series (an hour of seconds, twelve nodes' CPU: timed to the
// next frame, so an upper bound), and the
// page's JavaScript heap after drawing, in headless Chromium (Debian's), five draws each.
// Writes bench/results/charts.json with the machine it ran on.
//   node bench/charts.js [--points 3600] [--series 12] [--draws 5]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bench, flag, withDefault } = require('./kit');
const { lineChart } = require('../lab/report/chart');
const { chartAssets } = require('../lab/report/chart-assets');
const page = require('../lab/report/page');
const { html } = require('../lab/report/html');
const { launch, available, SKIP_REASON } = require('../lab/report/chromium');

/* global document, window */
async function run({ points: P, series: N, draws: count }) {
  if (!available()) throw new Error(SKIP_REASON);
  // Twelve wavy lines of an hour of seconds, with a few spikes: what a long run's CPU looks like.
  const series = Array.from({ length: N }, (_, k) => ({
    name: `node ${k + 1}`,
    points: Array.from({ length: P }, (_, i) => [
      i,
      20 + k * 5 + 10 * Math.sin(i / (30 + k)) + (i % 600 === 0 ? 40 : 0),
    ]),
  }));
  const chart = lineChart(series, { title: 'CPU per node', xLabel: 'time', time: true, yLabel: '%' });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-charts-')), 'page.html');
  fs.writeFileSync(file, page('charts', html`${chart}`));
  const browser = await launch();
  try {
    const ctx = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
    const tab = await ctx.newPage();
    await tab.goto(`file://${file}`);
    await tab.waitForFunction(() => window.labCharts && window.labCharts.charts.size === 1);
    const draws = await tab.evaluate(async (count) => {
      const orig = document.querySelector('figure.chart');
      const out = [];
      for (let i = 0; i < count; i++) {
        const fig = document.createElement('figure');
        fig.className = 'chart';
        fig.dataset.chart = orig.dataset.chart;
        fig.innerHTML = '<figcaption></figcaption><div class="plot"></div>';
        document.body.append(fig);
        const t0 = performance.now();
        window.labCharts.drawAll();
        // uPlot commits its drawing in a microtask: timed to the next frame, the canvas read.
        await new Promise((r) => window.requestAnimationFrame(() => r()));
        fig.querySelector('canvas').getContext('2d').getImageData(0, 0, 1, 1);
        out.push(performance.now() - t0);
      }
      return out;
    }, count);
    const heap = await tab.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
    const sorted = [...draws].sort((a, b) => a - b);
    const assets = String(chartAssets());
    const out = {
      library: `uPlot ${require('uplot/package.json').version}`,
      inlinedKiB: Math.round((Buffer.byteLength(assets) / 1024) * 10) / 10,
      pageKiB: Math.round((fs.statSync(file).size / 1024) * 10) / 10,
      points: P,
      series: N,
      drawMs: {
        median: Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10,
        all: draws.map((d) => Math.round(d * 10) / 10),
      },
      heapMiBAfter: heap === null ? null : Math.round((heap / 2 ** 20) * 10) / 10,
      draws: draws.length + 1,
    };
    return {
      headline: { drawMs: out.drawMs.median, inlinedKiB: out.inlinedKiB, heapMiBAfter: out.heapMiBAfter },
      ...out,
    };
  } finally {
    await browser.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

module.exports = bench(
  {
    name: 'charts',
    usage: 'node bench/charts.js [--points 3600] [--series 12] [--draws 5]',
    flags: {
      points: withDefault(flag.int(2, 1000000), 3600),
      series: withDefault(flag.int(1, 100), 12),
      draws: withDefault(flag.int(1, 100), 5),
    },
    machine: () => ({ uplot: require('uplot/package.json').version }),
    run,
  },
  module,
);
