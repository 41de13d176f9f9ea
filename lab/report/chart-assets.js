'use strict';

// What a page with charts carries, once, inline: uPlot (MIT, by Leon Sorokin; its licence
// named in the page beside it), its stylesheet, and the lab's script that draws the charts
// (./assets/charts.js). Nothing is fetched: a report opens from file:// offline, and a page
// sent by mail still draws. uPlot was chosen by measurement (bench/charts.js): ~50 KiB
// inlined, and 3,600 points x 12 series drawn in a few tens of milliseconds.
const fs = require('node:fs');
const path = require('node:path');
const { trusted } = require('./html');

let cached = null;

function read() {
  const dist = path.dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
  const pkg = require('uplot/package.json');
  const js = fs.readFileSync(path.join(dist, 'uPlot.iife.min.js'), 'utf8');
  const css = fs.readFileSync(path.join(dist, 'uPlot.min.css'), 'utf8');
  const ours = fs.readFileSync(path.join(__dirname, 'assets', 'charts.js'), 'utf8');
  // (A script's text must not hold "</script": neither file does, and this says so if one did.)
  for (const [name, text] of [
    ['uPlot', js],
    ['charts.js', ours],
  ]) {
    if (/<\/script/i.test(text)) throw new Error(`${name} holds "</script": it cannot be inlined`);
  }
  return {
    version: pkg.version,
    html: trusted(
      `<style>${css}\n${STYLE}</style>\n` +
        `<script>/* uPlot ${pkg.version}, https://github.com/leeoniya/uPlot, (c) Leon Sorokin, MIT licence */\n${js}</script>\n` +
        `<script>${ours}</script>`,
    ),
  };
}

// The charts' own look: the legend under the plot, a printed page keeps every chart whole.
const STYLE = `figure.chart{margin:14px 0}figure.chart figcaption{font-weight:bold;font-size:13px;margin-bottom:4px}
.u-legend{font-size:11px;text-align:left}.u-legend .u-value{font-variant-numeric:tabular-nums}
@media print{figure.chart{break-inside:avoid}figure.chart canvas{max-width:100%}}`;

// The inline block for a page's <head>.
function chartAssets() {
  if (!cached) cached = read();
  return cached.html;
}

module.exports = { chartAssets };
