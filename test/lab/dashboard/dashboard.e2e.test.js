'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
/* global document, window */
const { browserTest, launch, readPage, exploreChart, roundTicks } = require('../../browser');
const {
  startProgram,
  freePort,
  tmpStateDir,
  ownPlace,
  lab,
  errorCode,
  ROOT,
  flagsOf,
  stateOf,
} = require('../../helper');

// The live dashboard as a person meets it: a short scenario with --dashboard, the page
// opened in headless Chromium while the run goes. Its charts are drawn, its counters grow
// between two reads of the DOM, and at the end it says the run ended. The screenshot is kept
// (test-output/pages/dashboard.png, the README's picture).
browserTest(
  'a run with --dashboard: charts drawn, counters growing, the end said',
  async () => {
    const port = await freePort();
    const run = await startProgram(
      'lab/cli',
      [
        'scenario',
        'ping',
        'load',
        'replicated',
        // (60 s of load: in CI the page once was explored at its end, as the last update
        // replaced its charts; 30 s left too little on a busy machine.)
        ...flagsOf({ generator: 'fast', scale: 0.5, rateScale: 0.2, dashboard: port }),
        '--no-graphite',
        ...(await ownPlace({ ports: 70 })),
      ],
      { ready: (err) => /running ping load/.test(err), timeoutMs: 120000 },
    );
    expect(run.output().stderr).toContain(`live dashboard: http://127.0.0.1:${port}/`);
    // The progress line carries the address too.
    const sawProgress = Date.now() + 20000;
    while (!/\| live http:\/\/127\.0\.0\.1:\d+\//.test(run.output().stderr) && Date.now() < sawProgress)
      await new Promise((r) => setTimeout(r, 250));
    expect(run.output().stderr).toMatch(/\| live http:\/\/127\.0\.0\.1:\d+\//);
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1800 } });
      // What went wrong in the page while it updated (a chart that failed to draw throws there).
      const problems = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(`${m.text()} (${m.location().url})`));
      await page.goto(`http://127.0.0.1:${port}/`);
      const counters = () =>
        page.evaluate(() => {
          const c = document.getElementById('counters');
          return c ? { launched: Number(c.dataset.launched), completed: Number(c.dataset.completed) } : null;
        });
      await page.waitForFunction(() => Number(document.getElementById('counters')?.dataset.launched) > 0, null, {
        timeout: 30000,
      });
      const first = await counters();
      // Each chart is drawn once and kept: the next seconds are given to the same chart (a
      // reader's zoom survives them). Marked here, found again after the next update.
      await page.waitForFunction(() => window.labCharts && window.labCharts.charts.size >= 4, null, { timeout: 10000 });
      await page.evaluate(() => {
        for (const c of window.labCharts.charts.values()) c.plot.keptMark = c.spec.title;
      });
      // The next redraw: every second on an idle machine, every few seconds on a busy one
      // (the dashboard keeps to 2% of a core), so waited for, up to 20 s.
      await page
        .waitForFunction((n) => Number(document.getElementById('counters')?.dataset.launched) > n, first.launched, {
          timeout: 20000,
        })
        .catch(() => {});
      const second = await counters();
      expect(second.launched).toBeGreaterThan(first.launched);
      expect(second.completed).toBeGreaterThan(first.completed);
      const seen = await readPage(page);
      const kept = await page.evaluate(
        () => [...window.labCharts.charts.values()].filter((c) => c.plot.keptMark === c.spec.title).length,
      );
      expect(kept).toBeGreaterThanOrEqual(4);
      // A reader's hover and zoom on the live page (the run goes on meanwhile).
      const explored = await exploreChart(page, 0);
      expect(explored.readout.some((v) => /\d/.test(v))).toBe(true);
      expect(explored.zoomed[1] - explored.zoomed[0]).toBeLessThan((explored.full[1] - explored.full[0]) * 0.6);
      expect({ ticks: explored.ticksX, round: roundTicks(explored.ticksX) }).toEqual({
        ticks: explored.ticksX,
        round: true,
      });
      expect(seen.bad).toEqual([]);
      expect(seen.strayRows).toBe(0);
      expect(seen.charts.length).toBeGreaterThanOrEqual(4);
      expect(seen.charts.filter((c) => c.marks > 0).length).toBeGreaterThanOrEqual(3);
      fs.mkdirSync(path.join(ROOT, 'test-output', 'pages'), { recursive: true });
      await page.screenshot({ path: path.join(ROOT, 'test-output', 'pages', 'dashboard.png'), fullPage: false });
      // The end: the page says so and names the report.
      const { code } = await run.exited;
      expect(code).toBe(0);
      await page.waitForFunction(() => /the run has ended/.test(document.getElementById('status').textContent), null, {
        timeout: 10000,
      });
      expect(await page.textContent('#status')).toMatch(/report: .*report\.html/);
      expect(await page.textContent('#live')).not.toContain('[object Object]');
      expect(await page.locator('#live figure.chart canvas').count()).toBeGreaterThanOrEqual(4);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await run.stop();
    }
  },
  240000,
);

test('a dashboard port in use stops the run before anything starts, with one clear message', async () => {
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const { port } = blocker.address();
  const stateDir = tmpStateDir();
  try {
    const r = await lab(['scenario', 'ping', 'load', 'single', '--dashboard', String(port), '--state-dir', stateDir]);
    // The user's choice of port: a usage error that names the flag to change, not --port-base.
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe('LAB_ERR_PORT_TAKEN');
    expect(r.stderr).toContain(
      `port 127.0.0.1:${port} (the live dashboard) is already in use: choose another with --dashboard PORT`,
    );
    expect(r.stderr).not.toContain('--port-base');
    // Nothing was deployed.
    expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  } finally {
    blocker.close();
  }
});

test('--dashboard takes an optional port: alone it is 5665, and a bad one is a usage error', async () => {
  const scenario = require('../../../lab/commands/scenario');
  expect(scenario.plan(['ping', 'load', 'single', '--dashboard']).values.dashboard).toBe(5665);
  expect(scenario.plan(['ping', 'load', 'single', '--dashboard', '6001']).values.dashboard).toBe(6001);
  expect(scenario.plan(['ping', 'load', 'single', '--dashboard', '--generator', 'fast']).values.dashboard).toBe(5665);
  expect(scenario.plan(['ping', 'load', 'single']).values.dashboard).toBeUndefined();
  const bad = await lab(['scenario', 'ping', 'load', 'single', '--dashboard=80']);
  expect(bad.code).toBe(2);
});

// Every event of a live page's stream, up to the one that says the command ended.
async function readEvents(port) {
  const http = require('node:http');
  const events = [];
  await new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
      let buf = '';
      res.on('data', (d) => {
        buf += d;
        for (const m of buf.matchAll(/^data: (.*)$/gm)) events.push(JSON.parse(m[1]));
        buf = buf.slice(buf.lastIndexOf('\n') + 1);
        if (events.some((e) => e.ended)) res.destroy();
      });
      res.on('close', resolve);
    });
    req.on('error', resolve);
  });
  return events;
}

// The characterization's live page: the same page as its index.html, its levels so far.
test('characterize --dashboard: the levels measured so far, then the verdict', async () => {
  const port = await freePort();
  const run = await startProgram(
    'lab/cli',
    [
      'characterize',
      'bbox1',
      '--key',
      'abc',
      '--delay-scale',
      '0.1',
      // Each level held for 10 delays (about 1 s or more): a busy machine redraws the page
      // every 2-3 s (its CPU budget), and a level must still be on it once.
      ...flagsOf({ cycles: 10, maxConcurrency: 4, dashboard: port }),
      ...(await ownPlace()),
    ],
    { ready: (err) => /live dashboard/.test(err), timeoutMs: 60000 },
  );
  const events = await readEvents(port);
  const { code } = await run.exited;
  expect(code).toBe(0);
  const live = events.find((e) => !e.ended && /level\(s\) measured so far/.test(e.html) && /<td>2<\/td>/.test(e.html));
  expect(live).toBeDefined();
  expect(live.html).toMatch(/not decided yet/);
  const end = events[events.length - 1];
  expect(end.ended).toBe(true);
  expect(end.status).toMatch(/has ended; its page: .*index\.html/);
  expect(end.html).toMatch(/kind: <b>(a)?synchronous<\/b>/);
}, 120000);

// The capacity search's live page: the same body as capacity.html, with the step, the
// participants and memory second by second, then the end with the page's path.
test('capacity --dashboard: participants and memory second by second, then the results', async () => {
  const port = await freePort();
  const run = await startProgram(
    'lab/cli',
    [
      'capacity',
      ...flagsOf({ levels: '50,100,150', hold: '3s', rampPerS: 50, max: 150, memory: '400M', dashboard: port }),
      ...(await ownPlace()),
    ],
    { ready: (err) => /live dashboard/.test(err), timeoutMs: 60000 },
  );
  expect(run.output().stderr).toContain(`live dashboard: http://127.0.0.1:${port}/`);
  const events = await readEvents(port);
  const { code } = await run.exited;
  expect(code).toBe(0);
  const counters = (e) => {
    const m = /id="counters" data-active="(\d+)" data-seconds="(\d+)"/.exec(e.html);
    return m ? { active: Number(m[1]), seconds: Number(m[2]) } : null;
  };
  const live = events.filter((e) => !e.ended && counters(e));
  expect(live.length).toBeGreaterThanOrEqual(2);
  // The seconds recorded grow from one event to the next, and participants were seen.
  expect(counters(live.at(-1)).seconds).toBeGreaterThan(counters(live[0]).seconds);
  expect(Math.max(...live.map((e) => counters(e).active))).toBeGreaterThan(0);
  // (A chart's series ride in its figure's data: lab/report/chart.js.)
  expect(live.some((e) => /data-points="[1-9]\d*" data-chart="[^"]*participants connected/.test(e.html))).toBe(true);
  // With the run's log, so a failure here says what the run did instead.
  if (!live.some((e) => /Live: verify/.test(e.html)))
    throw new Error(`no live event showed the verify step; the run's log:\n${run.output().stderr}`);
  const end = events.at(-1);
  expect(end.ended).toBe(true);
  expect(end.status).toMatch(/has ended; its page: .*capacity\.html/);
  expect(end.html).toMatch(/first failure|at least 150/);
  expect(end.html).toContain('&quot;name&quot;:&quot;memory limit (MiB)&quot;');
}, 180000);

// One client that sent half a request held the run for good: the run never exited, its
// deployment stayed up, its lock stayed held, and SIGINT and SIGTERM were ignored.
describe('a dashboard client holding half a request does not hold the run', () => {
  const start = async (extra) => {
    const port = await freePort();
    const place = await ownPlace();
    const stateDir = stateOf(place);
    const run = await startProgram(
      'lab/cli',
      [
        'scenario',
        'ping',
        'endurance',
        'single',
        ...flagsOf({ generator: 'fast', rateScale: 0.05, graphite: false, dashboard: port }),
        ...place,
        ...extra,
      ],
      { ready: (err) => /running ping endurance/.test(err), timeoutMs: 90000 },
    );
    const holder = net.connect({ host: '127.0.0.1', port });
    holder.on('error', () => {});
    holder.write('GET / HTTP/1.1\r\n');
    return { run, holder, stateDir };
  };
  const within = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r('still running'), ms))]);

  test('the run ends on its own, and releases its folder', async () => {
    const { run, holder, stateDir } = await start(['--duration', '3s']);
    try {
      expect(await within(run.exited, 60000)).toEqual({ code: 0, signal: null });
      expect(fs.existsSync(path.join(stateDir, '.lab-lock'))).toBe(false);
      expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
    } finally {
      holder.destroy();
      await run.stop('SIGKILL');
      await lab(['down', '--state-dir', stateDir]);
    }
  }, 120000);

  test.each(['SIGINT', 'SIGTERM'])(
    '%s mid-run stops it',
    async (signal) => {
      const { run, holder, stateDir } = await start(['--duration', '60s']);
      try {
        run.child.kill(signal);
        expect(await within(run.exited, 60000)).toEqual({ code: 130, signal: null });
        expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
      } finally {
        holder.destroy();
        await run.stop('SIGKILL');
        await lab(['down', '--state-dir', stateDir]);
      }
    },
    120000,
  );
});

test('--host 0.0.0.0 says the dashboard listens on every interface', async () => {
  const { startDashboard } = require('../../../lab/dashboard/server');
  const open = await startDashboard({ host: '0.0.0.0', port: 0 });
  const local = await startDashboard({ host: '127.0.0.1', port: 0 });
  try {
    expect(open.exposed).toMatch(/listens on every interface \(0\.0\.0\.0\): anyone who reaches this machine/);
    expect(local.exposed).toBeNull();
  } finally {
    await open.close();
    await local.close();
  }
});
