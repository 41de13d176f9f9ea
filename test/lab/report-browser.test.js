'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, freePortBase, tmpStateDir, ROOT } = require('../helper');

// The report in a real browser (Debian's Chromium, driven by playwright-core): loaded from
// file:// with the network off, no console errors, every chart drawn with data points.
const CHROMIUM = '/usr/bin/chromium';
const maybe = fs.existsSync(CHROMIUM) ? test : test.skip;
if (!fs.existsSync(CHROMIUM)) process.stderr.write('report-browser: skipped, no Chromium (apt-get install chromium)\n');

maybe('a run report opens offline in Chromium with data in every chart', async () => {
  const stateDir = tmpStateDir();
  const resultsDir = tmpStateDir();
  const r = await lab(
    ['scenario', 'bbox1', 'spikes', 'replicated', '--scale', '0.05', '--rate-scale', '0.2', '--json'].concat([
      '--port-base',
      String(await freePortBase()),
      '--state-dir',
      stateDir,
      '--results-dir',
      resultsDir,
      '--no-graphite',
    ]),
    { timeoutMs: 180000 },
  );
  expect(r.code).toBe(0);
  const summary = JSON.parse(r.stdout);
  const report = path.join(summary.resultsDir, 'report.html');

  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (q) => problems.push(`request failed: ${q.url()}`));
    await page.goto(`file://${report}`);
    const charts = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((s) => ({
        title: (s.querySelector('text') || {}).textContent,
        points: [...s.querySelectorAll('path.series')].reduce((a, p) => a + Number(p.dataset.points), 0),
      })),
    );
    expect(charts.length).toBe(5);
    for (const c of charts)
      expect({ title: c.title, hasPoints: c.points > 0 }).toEqual({ title: c.title, hasPoints: true });
    expect(await page.$$eval('svg.chart line.marker', (l) => l.length)).toBeGreaterThanOrEqual(5 * 5);
    expect(await page.$$('svg.deployment')).toHaveLength(1);
    const shot = path.join(ROOT, 'test-output', 'report.png');
    fs.mkdirSync(path.dirname(shot), { recursive: true });
    await page.screenshot({ path: shot, fullPage: true });
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
});
