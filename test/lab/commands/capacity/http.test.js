'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const httpCapacity = require('../../../../lab/commands/capacity/http');
const { claimDir } = require('../../../../lab/ownership/dirs');
const { codeOf, refusalOf } = require('../../../helper');

// The search's folder (--run-dir, --restart): the lab deletes only what the search wrote.
// (A scenario run given as --run-dir was once reset, its summary, report and records gone;
// --restart deleted the notes a user had put beside the search.)
const SHOP = path.join(__dirname, '..', '..', '..', 'fixtures', 'apps', 'shop');
const planOf = (dir, ...more) =>
  httpCapacity.plan(['/api/items', '--app', SHOP, '--deployments', 'single', '--run-dir', dir, ...more]);
const log = () => {};

test("a folder of the lab's holding a scenario run is refused, named, and left whole", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cap-'));
  claimDir(dir, 'the run folder');
  fs.writeFileSync(
    path.join(dir, 'summary.json'),
    JSON.stringify({ endpoint: 'ping', scenario: 'load', startedAt: '2026-11-26T10:00:00Z' }),
  );
  fs.writeFileSync(path.join(dir, 'records.jsonl'), '{}\n');
  for (const more of [[], ['--restart']]) {
    let err = null;
    try {
      httpCapacity.openSearchDir(planOf(dir, ...more), log);
    } catch (e) {
      err = e;
    }
    expect({ code: err?.code, exit: err?.exitCode }).toEqual({ code: 'LAB_ERR_NOT_A_SEARCH', exit: 2 });
    expect(err.message).toMatch(
      /holds a run of ping load from 2026-11-26T10:00:00Z \(its summary\.json, report and records\), not a capacity search/,
    );
  }
  expect(fs.readdirSync(dir).sort()).toEqual(['.lab-owned', 'records.jsonl', 'summary.json']);
});

test("--restart deletes what the search wrote, and only that: a user's notes and plots stay", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cap-'));
  const p = planOf(dir);
  httpCapacity.openSearchDir(p, log);
  // What a search writes: a folder per deployment, its pages; and what a user adds.
  fs.mkdirSync(path.join(dir, 'single', '01-50'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'capacity.json'), '{}');
  const search = JSON.parse(fs.readFileSync(path.join(dir, 'search.json'), 'utf8'));
  fs.writeFileSync(
    path.join(dir, 'search.json'),
    JSON.stringify({ ...search, written: [...search.written, 'single', 'capacity.json'] }),
  );
  fs.writeFileSync(path.join(dir, 'my-notes.txt'), 'mine');
  fs.mkdirSync(path.join(dir, 'my-plots'));
  fs.writeFileSync(path.join(dir, 'my-plots', 'a.png'), 'x');
  httpCapacity.openSearchDir(planOf(dir, '--restart'), log);
  expect(fs.readdirSync(dir).sort()).toEqual(['.lab-owned', 'my-notes.txt', 'my-plots', 'search.json']);
  expect(fs.readFileSync(path.join(dir, 'my-plots', 'a.png'), 'utf8')).toBe('x');
  // A search.json of an older lab, without its list: the names its settings write.
  fs.mkdirSync(path.join(dir, 'single'));
  fs.writeFileSync(path.join(dir, 'search.json'), JSON.stringify({ settings: search.settings }));
  httpCapacity.openSearchDir(planOf(dir, '--restart'), log);
  expect(fs.readdirSync(dir).sort()).toEqual(['.lab-owned', 'my-notes.txt', 'my-plots', 'search.json']);
});

test('an empty folder, or none, is a new search; resuming keeps the list of what it wrote', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cap-')), 'new');
  httpCapacity.openSearchDir(planOf(dir), log);
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'search.json'), 'utf8')).written).toEqual(['search.json']);
  httpCapacity.openSearchDir(planOf(dir), log);
  expect(codeOf(() => httpCapacity.openSearchDir(planOf(dir, '--precision', '0.2'), log))).toBe('LAB_ERR_DIR_SETTINGS');
});

// What the run refuses, --plan refuses: both read the same plan (it once took --start above
// --max-rate, then crashed with "Cannot read properties of null (reading 'rate')").
test('refused before anything runs, --plan included: --start above --max-rate, --restart alone, --fresh-per-level with --keep-data, a time limit with no room', () => {
  const refused = (code, ...argv) => {
    const messages = [[], ['--plan']].map((more) => {
      let err = null;
      try {
        httpCapacity.plan(['/api/items', '--app', SHOP, ...argv, ...more]);
      } catch (e) {
        err = e;
      }
      expect({ argv, code: err?.code, exit: err?.exitCode }).toEqual({ argv, code, exit: 2 });
      return err.message;
    });
    expect(messages[1]).toBe(messages[0]);
    return messages[0];
  };
  const VALUE = 'LAB_ERR_FLAG_VALUE';
  expect(refused(VALUE, '--start', '100', '--max-rate', '50')).toMatch(
    /^--max-rate 50: below the first level's rate \(--start 100\)/,
  );
  // A bound the user did not type is named as the default it is, never blamed (issue 83).
  expect(refused(VALUE, '--max-rate', '20')).toMatch(
    /^--max-rate 20: below the first level's rate \(--start 50, the default\)/,
  );
  expect(refused(VALUE, '--max-rate', '0.5')).toMatch(/^--max-rate 0\.5: below .*--start 50, the default/);
  expect(refused(VALUE, '--start', '20001')).toMatch(
    /^--start 20001: above the highest rate tried \(--max-rate 20000, the default\)/,
  );
  expect(refused(VALUE, '--start', '0.05')).toMatch(/^--start 0\.05: below the floor \(--min-rate 1, the default\)/);
  expect(refused(VALUE, '--min-rate', '100')).toMatch(
    /^--min-rate 100: above the first level's rate \(--start 50, the default\)/,
  );
  expect(refused('LAB_ERR_FLAG_NEEDS', '--restart')).toMatch(
    /^--restart needs --run-dir: it starts over the search of a --run-dir/,
  );
  expect(refused('LAB_ERR_FLAGS_EXCLUDE', '--fresh-per-level', '--with', 'postgres', '--keep-data')).toMatch(
    /^--fresh-per-level and --keep-data exclude each other: --fresh-per-level gives every level a fresh database/,
  );
  expect(refused(VALUE, '--time-limit', '20s')).toMatch(
    /^--time-limit 0:20: leaves no room for a verified capacity: a deployment, its first level, the probe at rest and 3 verification run\(s\)/,
  );
  // A plan that can never verify a capacity (issue 83): three 10-minute verifications do not fit
  // the default 30 minutes, nor a verification of an hour's levels in two hours; said with the
  // default named, never "undefined".
  expect(refused(VALUE, '--verify-hold', '10m')).toMatch(
    /^--time-limit 30:00 \(the default\): leaves no room for a verified capacity: .* 3 verification run\(s\) of 600 s take up to 35:\d\d; give a longer --time-limit/,
  );
  expect(refused(VALUE, '--hold', '30m')).toMatch(/^--time-limit 30:00 \(the default\): leaves no room/);
  expect(refused(VALUE, '--hold', '1h', '--time-limit', '2h')).toMatch(/^--time-limit 2:00:00: leaves no room/);
  expect(refused(VALUE, '--verify-hold', '5m', '--time-limit', '10m')).toMatch(/^--time-limit 10:00: leaves no room/);
  // One verification of 10 minutes fits a longer limit: taken.
  expect(
    httpCapacity.plan(['/api/items', '--app', SHOP, '--verify-hold', '10m', '--repetitions', '1']).repetitions,
  ).toBe(1);
  // Their edges are taken.
  expect(httpCapacity.plan(['/api/items', '--app', SHOP, '--start', '50', '--max-rate', '50']).maxRate).toBe(50);
});

test('the verification holds for a stated time: twice a level by default, --verify-hold when given; in the plan', () => {
  const p = httpCapacity.plan(['/api/items', '--app', SHOP, '--hold', '10s']);
  expect(p.verifyHoldFor(50)).toBe(20);
  const q = httpCapacity.plan(['/api/items', '--app', SHOP, '--hold', '10s', '--verify-hold', '2m']);
  expect(q.verifyHoldFor(50)).toBe(120);
  expect(httpCapacity.planText(q)).toMatch(/each held for 120 s at 50\/s \(--verify-hold\)/);
});

test('--precision up to 100% (the first bracket, not bisected), said so in the plan; above it refused, naming the flag', () => {
  const p = httpCapacity.plan(['/api/items', '--app', SHOP, '--precision', '100%']);
  expect(p.precision).toBe(1);
  expect(httpCapacity.planText(p)).toMatch(/no bisection \(--precision 100%: the first bracket/);
  expect(httpCapacity.planText(p)).toMatch(/stepped down by 50% twice/);
  expect(httpCapacity.planText(httpCapacity.plan(['/api/items', '--app', SHOP, '--precision', '10%']))).toMatch(
    /bisection to 10%, or until two levels round/,
  );
  const refused = refusalOf(() => httpCapacity.plan(['/api/items', '--app', SHOP, '--precision', '101%']));
  expect(refused).toMatchObject({ code: 'LAB_ERR_INVALID_VALUE', exit: 2 });
  expect(refused.message).toMatch(/--precision.*101%.*at most 100%/);
});

// --stop-below R (choose's sweeps): said in the plan, kept in the search's settings; it stops a
// count's search, so without --replicas it is refused by name, and a rate that is not one too.
test('--stop-below: said in the plan of a sweep; without --replicas, or not a rate, refused naming it', () => {
  const p = httpCapacity.plan(['/api/items', '--app', SHOP, '--replicas', '1,2', '--stop-below', '130']);
  expect(p.stopBelow).toBe(130);
  expect(httpCapacity.planText(p)).toMatch(
    /a count whose search breaks at or below 130\/s stops there, not bisected or verified \(--stop-below: it does not hold 130\/s; unless the machine or the generator may have broken it\)/,
  );
  expect(httpCapacity.plan(['/api/items', '--app', SHOP, '--replicas', '1,2']).stopBelow).toBeNull();
  const alone = refusalOf(() => httpCapacity.plan(['/api/items', '--app', SHOP, '--stop-below', '130']));
  expect(alone).toMatchObject({ code: 'LAB_ERR_FLAG_NEEDS', exit: 2 });
  expect(alone.message).toMatch(/--stop-below.*--replicas/);
  const bad = refusalOf(() =>
    httpCapacity.plan(['/api/items', '--app', SHOP, '--replicas', '1,2', '--stop-below', 'fast']),
  );
  expect(bad).toMatchObject({ code: 'LAB_ERR_INVALID_VALUE', exit: 2 });
  expect(bad.message).toMatch(/--stop-below.*fast/);
});

// --recheck: the lowest break measured once more after the bisection (../capacity/search.js):
// said in the plan's text and JSON, one level more in its estimate, off by default.
test('--recheck: said in the plan, its JSON and its estimate; off without it', () => {
  const on = httpCapacity.plan(['/api/items', '--app', SHOP, '--deployments', 'single', '--recheck']);
  const off = httpCapacity.plan(['/api/items', '--app', SHOP, '--deployments', 'single']);
  expect(on.recheck).toBe(true);
  expect(off.recheck).toBe(false);
  expect(httpCapacity.planText(on)).toMatch(
    /then the top of the bracket \(the lowest rate that broke above the one held\) measured once more \(--recheck\): held this time, the bisection goes on up to the next rate that broke, measured once more in turn, twice at most/,
  );
  expect(httpCapacity.planText(off)).not.toMatch(/--recheck/);
  const { planJson } = require('../../../../lab/capacity/plan');
  expect(planJson(on).levels.recheck).toBe(true);
  expect(planJson(off).levels.recheck).toBe(false);
  expect(planJson(on).expected.aboutS).toBeGreaterThan(planJson(off).expected.aboutS);
  const bad = refusalOf(() => httpCapacity.plan(['/api/items', '--app', SHOP, '--recheck=yes']));
  expect(bad).toMatchObject({ exit: 2 });
  expect(bad.message).toMatch(/--recheck/);
});

// The plan's estimate within the search's own bounds (issue 83): a knee past --max-rate was
// assumed at 640/s, --max-levels changed nothing, and "about" could exceed "at most".
test("the plan's estimate honours the bounds: the knee within the rates, the levels within --max-levels, about never above at most", () => {
  const text = (...flags) =>
    httpCapacity.planText(httpCapacity.plan(['/api/items', '--app', SHOP, '--deployments', 'single', ...flags]));
  const secs = (clock) => clock.split(':').reduce((a, x) => a * 60 + Number(x), 0);
  const expected = (t) => {
    const m = /expected: about ([\d:]+) if the SLO breaks near ([\d.]+)\/s, at most ([\d:]+)/.exec(t);
    return { about: secs(m[1]), knee: Number(m[2]), most: secs(m[3]) };
  };
  expect(expected(text()).knee).toBe(640);
  expect(expected(text('--max-rate', '100')).knee).toBe(100);
  expect(expected(text('--start', '5', '--min-rate', '5', '--max-rate', '5')).knee).toBe(5);
  expect(expected(text('--start', '1000', '--min-rate', '1000')).knee).toBe(1000);
  expect(expected(text('--max-levels', '3')).about).toBeLessThan(expected(text()).about);
  for (const flags of [
    [],
    ['--time-limit', '9m', '--hold', '30s'],
    ['--verify-hold', '8m', '--repetitions', '1', '--time-limit', '13m'],
  ]) {
    const e = expected(text(...flags));
    expect({ flags, aboveMost: e.about > e.most }).toEqual({ flags, aboveMost: false });
  }
});

test('an SLO no run can hold or none can break is refused, naming it as typed', () => {
  for (const [slo, re] of [
    ['p99<0', /--slo "p99<0": no run can hold it/],
    ['errors<0%', /--slo "errors<0%": no run can hold it/],
    ['errors<150%', /--slo "errors<150%": no run can break it/],
    ['errors<=100%', /--slo "errors<=100%": no run can break it/],
  ]) {
    const r = refusalOf(() => httpCapacity.plan(['/api/items', '--app', SHOP, '--slo', slo]));
    expect({ slo, code: r?.code, exit: r?.exit }).toEqual({ slo, code: 'LAB_ERR_FLAG_VALUE', exit: 2 });
    expect(r.message).toMatch(re);
  }
  expect(
    httpCapacity.plan(['/api/items', '--app', SHOP, '--slo', 'errors<100%', '--slo', 'errors<=5']).slos,
  ).toHaveLength(2);
});

test('--plan --json prints the plan as JSON; a flag of the HTTP search given to the signaling form is said as such', async () => {
  const capacity = require('../../../../lab/commands/capacity');
  const state = ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'cap-plan-json-'))];
  const r = await capacity(['/api/items', '--app', SHOP, '--deployments', 'single', '--plan', '--json', ...state], {
    log: () => {},
  });
  const j = JSON.parse(r.stdout);
  expect(j).toMatchObject({ command: 'capacity', what: '/api/items', deployments: ['single'], replicas: null });
  expect(j.expected).toMatchObject({ searches: 1, kneeRate: 640 });
  expect(j.expected.aboutS).toBeLessThanOrEqual(j.expected.atMostS);
  expect(j.text).toMatch(/^capacity of \/api\/items on single/);
  // (The signaling estimate is the signal command; capacity --memory reaches it by the dispatcher.)
  const signal = require('../../../../lab/commands/signal');
  const e = await refusalOf(
    async () => signal(['--memory', '500M', '--verify-hold', '10m', ...state], { log: () => {} }),
    'accepted',
  );
  expect(e).toMatchObject({ code: 'LAB_ERR_FLAGS_EXCLUDE', exit: 2 });
  expect(e.message).toMatch(/^--verify-hold and --memory exclude each other: --verify-hold is the HTTP search's/);
});
