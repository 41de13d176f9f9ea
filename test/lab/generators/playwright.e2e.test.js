'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { lab, ownPlace, freePort, errorCode, artilleryRun, jsonOf, flagsOf, expectExit } = require('../../helper');
const { browserTest, launch, openPage } = require('../../browser');
const { CHROMIUM } = require('../../../lab/paths');

// A script of Artillery's Playwright engine (a testFunction of its processor) under
// --generator artillery: run with Debian's Chromium, the lab adding only where the browser is;
// the pages the browser asked for the same as under plain `artillery run` given that browser
// itself; its web vitals in the summary, held within their max; a run whose pages never
// loaded is a failed run. The site is the test's own: two pages, one linking a stylesheet.

function site() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/style.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      return res.end('h1 { color: teal; }');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      req.url === '/about'
        ? '<html><body><h1>About</h1></body></html>'
        : '<html><head><link rel="stylesheet" href="/style.css"></head><body><h1>Shop</h1><a href="/about">about</a></body></html>',
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        seen,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

// The script and its processor in a folder of their own; launch: launchOptions it sets itself.
// What the site was asked, sorted, without the favicon: the browser asks for it on its own,
// or not, before a page closes (the script's pages and their files are always asked).
const pagesOf = (seen) => seen.filter((l) => !l.endsWith(' /favicon.ico')).sort();

function scriptDir(target, launch = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'playwright-script-'));
  fs.writeFileSync(
    path.join(dir, 'flows.js'),
    "async function browse(page) {\n  await page.goto('/');\n  await page.click('text=about');\n  await page.waitForURL('**/about');\n}\nmodule.exports = { browse };\n",
  );
  const engines = launch ? { playwright: { launchOptions: launch } } : { playwright: {} };
  const script = {
    config: { target, phases: [{ duration: 2, arrivalCount: 2 }], engines, processor: './flows.js' },
    scenarios: [{ name: 'browse', engine: 'playwright', testFunction: 'browse' }],
  };
  fs.writeFileSync(path.join(dir, 'browse.json'), JSON.stringify(script, null, 2));
  return path.join(dir, 'browse.json');
}

browserTest(
  "--generator artillery runs a Playwright script with Debian's Chromium: the pages plain Artillery asks, web vitals in the summary",
  async () => {
    const ref = await site();
    let reference;
    let refCodes;
    try {
      // Plain Artillery, given the same browser in the script (it would otherwise download one).
      const args = process.getuid() === 0 ? ['--no-sandbox'] : [];
      const file = scriptDir(ref.url, { executablePath: CHROMIUM, args });
      const run = await artilleryRun(file);
      expect(run.code).toBe(0);
      reference = pagesOf(ref.seen);
      const counters = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')).aggregate.counters;
      refCodes = Object.fromEntries(
        Object.entries(counters)
          .filter(([k]) => k.startsWith('browser.page.codes.'))
          .map(([k, v]) => [k.slice('browser.page.codes.'.length), v]),
      );
    } finally {
      await ref.close();
    }
    expect(reference).toContain('GET /about');
    const srv = await site();
    try {
      const r = await lab(
        [
          'scenario',
          ...flagsOf({
            script: scriptDir('http://127.0.0.1:1'),
            target: srv.url,
            generator: 'artillery',
            graphite: false,
            json: true,
          }),
          ...(await ownPlace()),
        ],
        { timeoutMs: 240000 },
      );
      expect(r.stderr).not.toMatch(/LAB_ERR/);
      expectExit(r, 0);
      const s = jsonOf(r);
      expect(s.status).toBe('completed');
      // The virtual users launched, counted alike in the totals and in the phase (it once said
      // "Scenarios launched: 2" beside "achieved 0 (0%)").
      expect(s.scenariosLaunched).toBe(2);
      expect(s.phases.reduce((a, ph) => a + ph.launched, 0)).toBe(2);
      expect(r.stdout).not.toMatch(/launched 0 arrivals/);
      // The same pages and files, by the same two virtual users.
      expect(pagesOf(srv.seen)).toEqual(reference);
      // Pages and their codes as Artillery's own report counts them (the favicon's, fetched
      // or not before a page closes, may add one either side).
      expect(Object.keys(s.browser.codes)).toEqual(Object.keys(refCodes));
      expect(s.browser.pages).toBeGreaterThanOrEqual(4);
      const fcp = s.browser.vitals.FCP[`${srv.url}/`];
      expect(fcp.count).toBe(2);
      for (const k of ['p50', 'p95', 'p99']) expect(fcp[k]).toBeLessThanOrEqual(fcp.max);
      // (TTFB and FCP come with every page painted; LCP only when the browser reports it before
      // the page closes, which a busy machine once delayed past it: CI with the choose tests
      // beside it saw TTFB and FCP alone.)
      expect(Object.keys(s.browser.vitals)).toEqual(expect.arrayContaining(['TTFB', 'FCP']));
      // The lab's copy names the browser; the user's file is untouched.
      const copy = JSON.stringify(
        require('yaml').parse(fs.readFileSync(path.join(s.resultsDir, 'artillery-run.yml'), 'utf8')).config.engines,
      );
      expect(copy).toContain(CHROMIUM);
      // The report's section, as a person meets it.
      const browser = await launch();
      try {
        const seen = await openPage(browser, path.join(s.resultsDir, 'report.html'), 'run-report-playwright');
        expect(seen.problems).toEqual([]);
        expect(seen.bad).toEqual([]);
        expect(seen.text).toMatch(/Browser \(Playwright\)/);
        expect(seen.tables.find((t) => t.heads.includes('vital')).rows).toBeGreaterThanOrEqual(3);
      } finally {
        await browser.close();
      }
    } finally {
      await srv.close();
    }
  },
  300000,
);

browserTest(
  'a Playwright run whose pages never load is a failed run; fast refuses the engine by name',
  async () => {
    const port = await freePort();
    const file = scriptDir(`http://127.0.0.1:${port}`);
    const r = await lab(
      [
        'scenario',
        ...flagsOf({
          script: file,
          target: `http://127.0.0.1:${port}`,
          generator: 'artillery',
          graphite: false,
          json: true,
        }),
        ...(await ownPlace()),
      ],
      { timeoutMs: 240000 },
    );
    expect(r.code).toBe(1);
    expect(jsonOf(r).status).toMatch(
      /^failed \(no request was answered: (no page loaded|no virtual user completed): .*ERR_CONNECTION_REFUSED/,
    );
    const fast = await lab([
      'scenario',
      ...flagsOf({ script: file, target: `http://127.0.0.1:${port}`, generator: 'fast' }),
    ]);
    expect(fast.code).toBe(2);
    expect(errorCode(fast.stderr)).toBe('LAB_ERR_SCRIPT_FOREIGN');
    expect(fast.stderr).toMatch(/playwright/);
  },
  300000,
);

// A browser's script planned on a machine without Chromium: refused before anything starts,
// with the command to install it as this user would run it (as root it once said "or run the
// lab as root"); with Chromium, the plan says the scenarios are the browser's, not an empty list.
test("a Playwright script's --plan: what the browser runs, or the missing browser named before anything starts", async () => {
  const file = scriptDir('http://127.0.0.1:1');
  const plan = await lab([
    'scenario',
    '--script',
    file,
    'single',
    '--generator',
    'artillery',
    '--plan',
    ...(await ownPlace()),
  ]);
  expect(plan.stdout).toMatch(
    /^requests: none of the lab's to list; the script's scenarios run on .*the playwright engine \(scenarios\[0\]\.engine\), by Artillery$/m,
  );
  const none = await lab(
    ['scenario', '--script', file, 'single', '--generator', 'artillery', '--plan', ...(await ownPlace())],
    {
      env: { LAB_CHROMIUM: '/nonexistent/chromium' },
    },
  );
  expect(none.code).toBe(1);
  expect(errorCode(none.stderr)).toBe('LAB_ERR_KIND_MISSING');
  expect(none.stderr).toMatch(
    process.getuid() === 0
      ? /run `apt-get install -y chromium` \(or `npm run setup`/
      : /run `sudo apt-get install -y chromium` \(or run the lab as root/,
  );
});
