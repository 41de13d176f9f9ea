'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Headless Chromium for the pages the lab writes: Debian's `chromium`, driven by
// playwright-core (never a browser a tool downloads). Tests that need it call `browserTest`,
// which skips with the reason printed (never passes silently) where there is none.
const CHROMIUM = process.env.LAB_CHROMIUM || '/usr/bin/chromium';
const available = () => fs.existsSync(CHROMIUM);
const SKIP_REASON = `no Chromium at ${CHROMIUM} (as root the test set-up installs it: apt-get install -y chromium)`;

function browserTest(name, fn, timeoutMs) {
  if (available()) return test(name, fn, timeoutMs);
  process.stderr.write(`skipped "${name}": ${SKIP_REASON}\n`);
  return test.skip(`${name} [skipped: ${SKIP_REASON}]`, fn);
}

async function launch() {
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

// What a person meets on a page, read from the rendered DOM (not from the HTML text):
// - tables: each with its header cells and the number of body rows with cells, all inside
//   the table element (a broken <table> tag leaves the rows outside, as run-on text);
// - strayRows: rows or cells the browser put outside any table;
// - charts: each <svg> with its title and how many marks it draws with a non-empty box;
// - bad: words that show a value went missing ("undefined", "NaN", "[object Object]").
// (The function runs in the page, where `document` is the browser's.)
/* global document */
function readPage(page) {
  return page.evaluate(() => {
    const tables = [...document.querySelectorAll('table')].map((t) => ({
      heads: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
      rows: [...t.querySelectorAll('tbody tr')].filter((tr) => tr.querySelector('td')).length,
      width: t.getBoundingClientRect().width,
    }));
    const strayRows = [...document.querySelectorAll('tr, td, th')].filter((e) => !e.closest('table')).length;
    const charts = [...document.querySelectorAll('svg')].map((s) => {
      const marks = [...s.querySelectorAll('path, polyline, line, rect, circle')].filter((m) => {
        const b = m.getBBox();
        return b.width > 0 || b.height > 0;
      });
      return {
        title: (s.querySelector('text') || {}).textContent || s.getAttribute('class') || 'svg',
        marks: marks.length,
      };
    });
    const text = document.body.innerText;
    const bad = ['undefined', 'NaN', '[object Object]'].filter((w) => text.includes(w));
    return { title: document.title, tables, strayRows, charts, bad, textLength: text.length };
  });
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
    await page.goto(`file://${path.resolve(file)}`);
    const seen = await readPage(page);
    const out = path.join(__dirname, '..', 'test-output', 'pages', `${shot}.png`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    return { ...seen, problems, screenshot: out };
  } finally {
    await context.close();
  }
}

module.exports = { browserTest, launch, readPage, openPage, available, CHROMIUM, SKIP_REASON };
