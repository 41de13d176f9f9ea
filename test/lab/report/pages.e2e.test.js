'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { browserTest, openPage, roundTicks, sharedBrowser } = require('../../browser');
const { lab, ownPlace, jsonOf } = require('../../helper');
const loadRun = require('../../../lab/report/load-run');
const { renderRunReport, renderCompare } = require('../../../lab/report/run-report');
const characterizeHtml = require('../../../lab/report/characterize-html');
const { capacityPage, capacityBody } = require('../../../lab/report/capacity-html');
const { capacityHttpPage } = require('../../../lab/report/capacity-http-html');
const page = require('../../../lab/report/page');
const { STUDIES } = require('../../../lab/studies');
const { studyReport } = require('../../../lab/studies/kit');

// Every kind of page the lab writes, opened in headless Chromium as a person meets it: the
// tables are tables (header and rows inside the element), every chart draws marks, nothing
// reads "undefined", "NaN" or "[object Object]", no console error, nothing fetched. Pages
// are rendered from the committed fixtures (real quick runs of this machine, cut down to
// the files the pages read), and one from a real short run. Screenshots:
// test-output/pages/<page>.png.
const FIX = path.join(__dirname, '..', 'studies', 'fixtures');
const machine = { hostname: 'vm', cpuModel: 'x', cores: 2, memoryGiB: 23.5, node: 'v20' };
const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

// The settings each study fixture was made with (the course one: its filters too).
const STUDY_FIXTURES = {
  course: {
    dir: 'course',
    o: {
      scale: 0.03,
      rateScale: 0.1,
      generator: 'fast',
      endpoints: ['ping', 'bbox2'],
      scenarios: ['load'],
      deployments: ['single', 'replicated'],
    },
  },
  cdn: { dir: 'cdn', o: { scale: 0.1 } },
  'lb-modes': { dir: 'lb', o: { scale: 0.1 } },
  balancers: { dir: 'bal', o: { scale: 0.1 } },
  signaling: { dir: 'sig', o: { scale: 0.1 } },
  // Your service (test/fixtures/apps/shop) in two deployments, a quick run.
  deployments: {
    dir: 'dep',
    o: {
      scale: 0.05,
      rateScale: 0.5,
      app: 'test/fixtures/apps/shop',
      paths: ['/api/items'],
      scenarios: ['load', 'spikes'],
      deployments: ['single', 'replicated'],
      slos: ['p99<100'],
    },
  },
};
const RESULT_FILES = ['summary.json', 'result.json', 'capacity.json'];

function studyPage(name) {
  const { dir, o } = STUDY_FIXTURES[name];
  const study = STUDIES[name];
  const studyDir = path.join(FIX, dir);
  const plan = study.plan(o);
  const missing = plan
    .filter((r) => !RESULT_FILES.some((f) => fs.existsSync(path.join(studyDir, 'runs', r.id, f))))
    .map((r) => r.id);
  return studyReport(study, { studyDir, plan, missing, failures: {}, machine, scale: o.scale }).html;
}

const courseRun = (id) => path.join(FIX, 'course', 'runs', id);

// A capacity run 30 s in: two levels held, then the verification's first seconds.
function capacityMidRun() {
  const out = readJson(path.join(FIX, 'sig', 'runs', 'capacity-500M', 'capacity.json'));
  const t0 = 1.7e12;
  const timeline = Array.from({ length: 30 }, (_, i) => ({
    step: i < 20 ? 'estimate' : 'verify',
    at: t0 + i * 1000,
    active: i < 20 ? Math.min(2000, i * 200) : (i - 20) * 500,
    rssBytes: (60 + (i < 20 ? Math.min(2000, i * 200) : (i - 20) * 500) / 50) * 2 ** 20,
    heapUsedBytes: 20 * 2 ** 20,
    limitBytes: i < 20 ? null : 500 * 2 ** 20,
  }));
  return { ...out, verification: null, withinReach: null, timeline, levels: 4 };
}

// name -> [html, what the page must show at least: tables, charts]
// A replica sweep's page: the shop search's file with a scaling section made from verdicts at
// 1 to 4 replicas and a check at 6 (lab/capacity/scaling.js).
function withScaling() {
  const { scalingOf } = require('../../../lab/capacity/scaling');
  const base = readJson(path.join(__dirname, '..', 'capacity', 'fixtures', 'capacity-shop.json'));
  const measured = { 1: 96, 2: 178, 3: 239, 4: 292, 6: 348 };
  const verdicts = Object.entries(measured).map(([n, rate]) => ({
    replicas: Number(n),
    verdict: { maxRate: rate, bound: 'deployment', cpuMsPerRequestByTier: { nginx: 0.2 } },
  }));
  return { ...base, scaling: scalingOf(verdicts, { deployment: 'replicated', predictN: 6, needRate: 300 }) };
}

// The scaling study's page from two sweeps' capacity.json (lab/studies/scaling.js).
function scalingStudyPage() {
  const { scalingOf } = require('../../../lab/capacity/scaling');
  const { usl } = require('../../../lab/capacity/usl');
  const study = STUDIES.scaling;
  const studyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-scaling-page-'));
  const laws = { nginx: { sigma: 0.02, kappa: 0, lambda: 30 }, node: { sigma: 0.2, kappa: 0.02, lambda: 30 } };
  for (const [kind, law] of Object.entries(laws)) {
    const verdicts = [1, 2, 3, 4].map((n) => ({
      replicas: n,
      verdict: { maxRate: Math.round(usl(n, law)), bound: 'deployment' },
    }));
    fs.mkdirSync(path.join(studyDir, 'runs', `sweep-${kind}`), { recursive: true });
    fs.writeFileSync(
      path.join(studyDir, 'runs', `sweep-${kind}`, 'capacity.json'),
      JSON.stringify({ scaling: scalingOf(verdicts, { deployment: 'replicated' }) }),
    );
  }
  const plan = study.plan({ app: '/srv/app', paths: ['/api/items'], scale: 0.1, balancers: Object.keys(laws) });
  return studyReport(study, { studyDir, plan, missing: [], failures: {}, machine, scale: 0.1 }).html;
}

// Each page a renderer of its own, run by its own test: fifteen pages in one test once ran out
// of 240 s on a saturated machine, and a failure now names its page.
// (The course's two runs read once, for the two pages that show them.)
let courseRuns = null;
const runs = () =>
  (courseRuns ??= {
    single: loadRun(courseRun('ping-load-single')),
    replicated: loadRun(courseRun('ping-load-replicated')),
  });
const PAGES = {
  'run-report': () => [renderRunReport(runs().single), { tables: 3, charts: 6 }],
  compare: () => [renderCompare([runs().single, runs().replicated]), { tables: 1, charts: 5 }],
  characterize: () => {
    const c = readJson(path.join(courseRun('characterize-bbox2'), 'result.json'));
    return [characterizeHtml({ ...c, verdict: { ...c.verdict, levels: c.levels } }), { tables: 1, charts: 1 }];
  },
  capacity: () => [
    capacityPage(readJson(path.join(FIX, 'sig', 'runs', 'capacity-500M', 'capacity.json'))),
    { tables: 2 },
  ],
  // npm run capacity on your service's path: two deployments searched (a real run's file).
  'capacity-http': () => [
    capacityHttpPage(readJson(path.join(__dirname, '..', 'capacity', 'fixtures', 'capacity-shop.json'))),
    { tables: 2, charts: 1 },
  ],
  // capacity --replicas: the same page with how it scales (the law fitted, a prediction checked).
  'capacity-scaling': () => [capacityHttpPage(withScaling()), { tables: 2, charts: 2 }],
  // study scaling: two kinds' sweeps, their curves together.
  'study-scaling': () => [scalingStudyPage(), { tables: 1, charts: 1 }],
  // capacity --dashboard's page mid-run: the estimate done, the verification going.
  'capacity-live': () => [
    page('live: capacity', capacityBody(capacityMidRun(), { live: true })),
    { tables: 2, charts: 1 },
  ],
  ...Object.fromEntries(
    Object.keys(STUDY_FIXTURES).map((name) => [`study-${name}`, () => [studyPage(name), { tables: 1 }]]),
  ),
};

// The checks, as one object per page so a failure names the page and everything wrong.
function verdict(seen, expected) {
  return {
    tablesAtLeast: seen.tables.length >= (expected.tables || 0),
    tablesWithoutHeader: seen.tables.filter((t) => !t.heads.length).length,
    tablesWithoutRows: seen.tables.filter((t) => !t.rows).length,
    strayRows: seen.strayRows,
    chartsAtLeast: seen.charts.length >= (expected.charts || 0),
    chartsWithoutMarks: seen.charts.filter((c) => !c.marks).map((c) => c.title),
    // Every chart with round ticks; the first explored as a reader would (test/browser.js).
    ticksNotRound: seen.charts
      .filter((c) => c.marks && !(roundTicks(c.ticksX) && roundTicks(c.ticksY)))
      .map((c) => `${c.title}: ${c.ticksX} / ${c.ticksY}`),
    explored: seen.explored && {
      hoverShowsValues: seen.explored.readout.some((v) => /\d/.test(v)),
      dragZooms:
        seen.explored.zoomed[1] - seen.explored.zoomed[0] < (seen.explored.full[1] - seen.explored.full[0]) * 0.6,
      doubleClickResets:
        seen.explored.reset[0] === seen.explored.full[0] && seen.explored.reset[1] === seen.explored.full[1],
    },
    printedWithoutChart: seen.charts.length - seen.printed,
    bad: seen.bad,
    problems: seen.problems,
    requests: seen.requests,
  };
}
const EXPLORED = { hoverShowsValues: true, dragZooms: true, doubleClickResets: true };
const GOOD = {
  tablesAtLeast: true,
  tablesWithoutHeader: 0,
  tablesWithoutRows: 0,
  strayRows: 0,
  chartsAtLeast: true,
  chartsWithoutMarks: [],
  ticksNotRound: [],
  explored: EXPLORED,
  printedWithoutChart: 0,
  bad: [],
  problems: [],
  requests: [],
};
// (A page with no chart has nothing to explore.)
const good = (seen) => ({ ...GOOD, explored: seen.charts.length ? EXPLORED : null });

describe('the pages the lab writes, in Chromium', () => {
  const browser = sharedBrowser();

  // Every page kind from the fixtures, a test each.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-'));
  for (const [name, render] of Object.entries(PAGES)) {
    browserTest(
      `the ${name} page from the fixtures shows its tables as tables and draws its charts`,
      async () => {
        const [text, expected] = render();
        const file = path.join(dir, `${name}.html`);
        fs.writeFileSync(file, text);
        const seen = await openPage(browser(), file, name);
        expect(verdict(seen, expected)).toEqual(good(seen));
      },
      // (A page opened, read, explored and printed: 10-20 s on a machine saturated by a first
      // CI run's cold caches.)
      120000,
    );
  }

  // A search whose machine's CPUs ran apart (lab/measure/cpu-speeds.js) says so where its
  // reader looks, with the readings, and its page is whole.
  browserTest('a search whose CPUs ran apart says so on its page, with the readings of the moment', async () => {
    const { cpuSpeedsText } = require('../../../lab/measure/cpu-speeds');
    const at = '2026-12-01T05:00:00.000Z';
    const cpuSpeeds = {
      start: {
        at,
        cpus: [
          { cpu: 0, ms: 1.67 },
          { cpu: 1, ms: 1.03 },
        ],
        spreadPct: 62.1,
      },
      end: {
        at,
        cpus: [
          { cpu: 0, ms: 1.1 },
          { cpu: 1, ms: 1.09 },
        ],
        spreadPct: 0.9,
      },
    };
    const base = readJson(path.join(__dirname, '..', 'capacity', 'fixtures', 'capacity-shop.json'));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pages-')), 'capacity-cpus-apart.html');
    fs.writeFileSync(file, capacityHttpPage({ ...base, cpuSpeeds, cpuSpeedsText: cpuSpeedsText(cpuSpeeds) }));
    const seen = await openPage(browser(), file, 'capacity-cpus-apart');
    expect(verdict(seen, { tables: 2, charts: 1 })).toEqual(good(seen));
    // (innerText: what is shown, a paragraph of its own.)
    const said = seen.text.split('\n').filter((l) => l.startsWith("this machine's CPUs did not run at one speed"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('1.67 ms on CPU 0 and 1.03 ms on CPU 1 (62.1% apart) at the start, over 15% apart');
    expect(said[0]).not.toContain('at the end');
    // Before the table of levels, as the machine's limit is.
    expect(seen.text.indexOf(said[0])).toBeLessThan(seen.text.indexOf(seen.tables[0].heads.join('\t')));
  });

  // The same on a choice's page: a sweep measured while the CPUs ran apart, said where a
  // reader meets it (lab/report/choice-html.js).
  browserTest('a choice whose sweep ran while the CPUs were apart says so on its page', async () => {
    const { choicePage } = require('../../../lab/report/choice-html');
    const text =
      "this machine's CPUs did not run at one speed: the same computation took 1.67 ms on CPU 0 and 1.03 ms on CPU 1 (62.1% apart) at the start, over 15% apart";
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pages-')), 'choice-cpus-apart.html');
    const sweep = { id: 'replicated-50pct', points: [1, 2].map((n) => ({ replicas: n, maxRate: 200 * n })) };
    fs.writeFileSync(
      file,
      choicePage({
        version: 1,
        what: '/price',
        slos: ['p99<200', 'errors<1%'],
        rate: 100,
        headroomPct: 30,
        want: 130,
        cpuPerReplica: 0.5,
        counts: [1, 2],
        status: 'interrupted',
        sweeps: [{ ...sweep, cpuSpeedsText: text }],
        candidates: [],
        checks: [],
        files: [],
        text: 'the choice was interrupted while measuring: nothing was chosen',
      }),
    );
    const seen = await openPage(browser(), file, 'choice-cpus-apart');
    expect({ bad: seen.bad, problems: seen.problems, requests: seen.requests }).toEqual({
      bad: [],
      problems: [],
      requests: [],
    });
    expect(seen.text.split('\n')).toContain(`While the sweep replicated-50pct measured, ${text}.`);
  });

  // The same checks on a page the run itself wrote, with its StatsD and sampler panels (five
  // charts, phase markers, the deployment drawn). (The lab's open loop: Artillery's own
  // pages are checked by test/lab/monitoring/sampler.e2e.test.js.)
  browserTest(
    'a real run report opens offline with data in every chart',
    async () => {
      const r = await lab(
        ['scenario', 'bbox1', 'spikes', 'replicated', '--scale', '0.05', '--rate-scale', '0.2', '--json'].concat([
          '--generator',
          'fast',
          ...(await ownPlace()),
          '--no-graphite',
        ]),
        { timeoutMs: 180000 },
      );
      expect(r.code).toBe(0);
      const report = path.join(jsonOf(r).resultsDir, 'report.html');
      const seen = await openPage(browser(), report, 'run-report-live');
      expect(verdict(seen, { tables: 3, charts: 6 })).toEqual(GOOD);
      // How late the lab's engine read its answers, as the summary says it.
      const { p50, p99 } = jsonOf(r).generator.loopLateMs;
      expect(seen.text).toContain(`Its own event loop ran late by ${p50} ms at the median, ${p99} ms at p99`);
      const series = seen.charts.filter((c) => c.marks > 0);
      expect(series.length).toBeGreaterThanOrEqual(5);
    },
    240000,
  );
});
