'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Headless Chromium for the pages the lab writes (lab/report/chromium.js starts it). Tests that
// need it call `browserTest`, which skips with the reason printed (never passes silently)
// where there is none.
const { CHROMIUM, available, SKIP_REASON, launch } = require('../lab/report/chromium');
const { onlyWith } = require('./requires');

// (Its skip counted, and a failure where the set-up ran as root: ./requires.js.)
function browserTest(name, fn, timeoutMs) {
  return onlyWith('chromium')(name, fn, timeoutMs);
}

// A journey and the page it writes, as two tests: the journey a plain test (it runs on a machine
// without Chromium: its logic is tested everywhere), then its page as a person meets it, a
// browser test of its own (skipped and counted without Chromium). `journey()` returns what
// the page's check needs; `page(it, browser)` opens and judges it. (They were one test: where
// Chromium was missing, all of a journey's logic went untested, shown as one skip.)
// Call it at a file's top level or in a describe: jest runs the two in order.
// needs: what the journey itself needs of the machine (test/requires.js), e.g. 'cgroups' for
// one that caps its replicas: skipped and counted without it, as its page is then.
function journey(name, run, page, { timeoutMs, pageTimeoutMs = 60000, needs = null } = {}) {
  const browser = sharedBrowser();
  let made = null;
  (needs ? onlyWith(needs) : test)(
    name,
    async () => {
      made = await run();
    },
    timeoutMs,
  );
  browserTest(
    `${name}: its page`,
    async () => {
      if (!made) throw new Error(`no page to open: the journey "${name}" failed before it wrote one`);
      await page(made, browser());
    },
    pageTimeoutMs,
  );
}

// What a person meets on a page, read from the rendered DOM (not from the HTML text):
// - tables: each with its header cells and the number of body rows with cells, all inside
//   the table element (a broken <table> tag leaves the rows outside, as run-on text);
// - strayRows: rows or cells the browser put outside any table;
// - charts: each figure.chart with its title, the series it drew with points, its ticks;
//   diagrams: each <svg> (the deployment's graph) with its marks in a non-empty box;
// - bad: words that show a value went missing ("undefined", "NaN", "[object Object]").
// (The function runs in the page, where `document` is the browser's.)
/* global document, window */
function readPage(page) {
  return page.evaluate(() => {
    // (A chart's legend is uPlot's table of series: not one of the page's tables.)
    const tables = [...document.querySelectorAll('table:not(.u-legend)')].map((t) => ({
      heads: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
      rows: [...t.querySelectorAll('tbody tr')].filter((tr) => tr.querySelector('td')).length,
      width: t.getBoundingClientRect().width,
    }));
    const strayRows = [...document.querySelectorAll('tr, td, th')].filter((e) => !e.closest('table')).length;
    // Charts as the reader meets them: drawn by the page's script (lab/report/assets/charts.js)
    // on a canvas, each series with points counted once drawn.
    const drawn = window.labCharts ? window.labCharts.charts : new Map();
    const charts = [...document.querySelectorAll('figure.chart')].map((f) => {
      const c = drawn.get(f);
      const marks = c
        ? c.plot.series.slice(1).filter((sr, i) => sr.show && c.plot.data[i + 1].some((v) => v !== null)).length
        : 0;
      return {
        title: (f.querySelector('figcaption') || {}).textContent || '',
        marks,
        canvas: Boolean(f.querySelector('canvas')) && f.querySelector('canvas').getBoundingClientRect().width > 0,
        ticksX: f.dataset.ticksX || '',
        ticksY: f.dataset.ticksY || '',
      };
    });
    // Drawings that are not charts (the deployment's graph): SVG with marks in a box.
    const diagrams = [...document.querySelectorAll('svg')].map((s) => ({
      marks: [...s.querySelectorAll('path, polyline, line, rect, circle')].filter((m) => {
        const b = m.getBBox();
        return b.width > 0 || b.height > 0;
      }).length,
    }));
    const text = document.body.innerText;
    const bad = ['undefined', 'NaN', '[object Object]'].filter((w) => text.includes(w));
    return { title: document.title, tables, strayRows, charts, diagrams, bad, text, textLength: text.length };
  });
}

// What a reader can do with a chart (the i-th of the page), done with the mouse as a reader
// does it: hover its middle (the legend then shows each series' value there), drag across
// its middle third (the x axis then shows only that stretch), double-click (all again).
// Returns { readout: the legend's values while hovering, full, zoomed, reset: the x scale's
// [min, max] before, after the drag and after the double-click, ticksX, ticksY }.
async function exploreChart(page, i) {
  const fig = page.locator('figure.chart').nth(i);
  // (Each read finds the figure again, and its chart: a live page's update replaces the
  // figures every second, moving each chart into the new figure. A figure Playwright found just
  // before an update is read after it, detached and without its chart: in CI twice, once in the
  // registry of charts, once with no drawing area. A read tries again for up to 5 s, then
  // fails saying so.)
  const untilDrawn = async (read) => {
    for (let tries = 0; ; tries++) {
      const v = await fig.evaluate(read);
      if (v) return v;
      if (tries >= 20) throw new Error(`chart ${i}: its figure has no chart drawn after 5 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  // (Scrolled to and measured in one call in the page: in CI a figure was replaced between
  // Playwright's scrollIntoViewIfNeeded finding it and scrolling to it, "not attached to the
  // DOM". The chart moves into the new figure, at the same place, so the box still holds.)
  const box = await untilDrawn((f) => {
    f.scrollIntoView({ block: 'nearest' });
    const over = f.querySelector('.u-over');
    if (!over) return null;
    const r = over.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const scale = () =>
    untilDrawn((f) => {
      const c = window.labCharts && window.labCharts.charts.get(f);
      return c && c.plot ? [c.plot.scales.x.min, c.plot.scales.x.max] : null;
    });
  const full = await scale();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const readout = await fig.locator('.u-legend .u-series .u-value').allTextContents();
  await page.mouse.move(box.x + box.width / 3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + (box.width * 2) / 3, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const zoomed = await scale();
  const ticks = await fig.evaluate((f) => ({ ticksX: f.dataset.ticksX, ticksY: f.dataset.ticksY }));
  await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
  const reset = await scale();
  return { readout, full, zoomed, reset, ...ticks };
}

// Round tick labels: each a number 1, 2 or 5 x 10^n times an integer (with a unit: s, min, h,
// or none), as a reader expects to see them.
function roundTicks(labels) {
  const values = labels
    .split(' | ')
    .filter(Boolean)
    .map((l) => Number(l.replace(/,/g, '').replace(/ (s|min|h)$/, '')));
  if (values.length < 2 || values.some((v) => !Number.isFinite(v))) return false;
  const step = Math.abs(values[1] - values[0]);
  const mant = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  const roundStep = [1, 2, 5, 10].some((m) => Math.abs(mant - m) < 1e-6);
  return roundStep && values.every((v) => Math.abs(v / step - Math.round(v / step)) < 1e-6);
}

// Opens a file:// page offline, collects console errors and failed requests, reads it and
// keeps a full-page screenshot under test-output/pages/<shot>.png.
async function openPage(browser, file, shot) {
  const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (q) => problems.push(`request failed: ${q.url()}`));
    // Nothing but the file itself may be asked for: a page opens offline.
    const requests = [];
    page.on('request', (q) => !q.url().startsWith('file://') && requests.push(q.url()));
    await page.goto(`file://${path.resolve(file)}`);
    const seen = await readPage(page);
    const out = path.join(__dirname, '..', 'test-output', 'pages', `${shot}.png`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    const explored = seen.charts.length ? await exploreChart(page, 0) : null;
    // As printed: every chart still there, with its drawing.
    await page.emulateMedia({ media: 'print' });
    const printed = await page.evaluate(
      () =>
        [...document.querySelectorAll('figure.chart canvas')].filter((c) => {
          const b = c.getBoundingClientRect();
          return b.width > 0 && b.height > 0 && window.getComputedStyle(c).visibility !== 'hidden';
        }).length,
    );
    return { ...seen, problems, requests, explored, printed, screenshot: out };
  } finally {
    await context.close();
  }
}

// One browser for a file's tests, launched before them where there is one and closed after:
// `const browser = sharedBrowser();` then `browser()` in a test. (The same block stood in nine
// files.)
function sharedBrowser() {
  let browser = null;
  beforeAll(async () => {
    if (available()) browser = await launch();
  });
  afterAll(async () => browser && browser.close());
  return () => browser;
}

module.exports = {
  sharedBrowser,
  browserTest,
  journey,
  launch,
  readPage,
  openPage,
  exploreChart,
  roundTicks,
  available,
  CHROMIUM,
  SKIP_REASON,
};
