'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const httpCapacity = require('../../../../lab/commands/capacity/http');
const { claimDir } = require('../../../../lab/ownership/dirs');
const { codeOf } = require('../../../helper');

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
  expect(refused(VALUE, '--start', '100', '--max-rate', '50')).toMatch(/^--start 100: above --max-rate 50/);
  expect(refused(VALUE, '--max-rate', '20')).toMatch(/^--start 50: above --max-rate 20/);
  expect(refused('LAB_ERR_FLAG_NEEDS', '--restart')).toMatch(
    /^--restart needs --run-dir: it starts over the search of a --run-dir/,
  );
  expect(refused('LAB_ERR_FLAGS_EXCLUDE', '--fresh-per-level', '--with', 'postgres', '--keep-data')).toMatch(
    /^--fresh-per-level and --keep-data exclude each other: --fresh-per-level gives every level a fresh database/,
  );
  expect(refused(VALUE, '--time-limit', '20s')).toMatch(
    /^--time-limit 20 s: leaves no room for a deployment and its first level/,
  );
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
