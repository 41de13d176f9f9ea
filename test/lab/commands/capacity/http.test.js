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
  expect(codeOf(() => httpCapacity.openSearchDir(planOf(dir, '--precision', '0.2'), log))).toBe('LAB_ERR_USAGE');
});
