'use strict';

// The library's runs (lab/api/run.js), called as a user's test calls them: the answer is what
// --json prints, progress and lines as events, a refusal with the command line's code, and an
// AbortSignal that stops everything as Ctrl-C does and keeps what was measured.

const fs = require('node:fs');
const path = require('node:path');
const lab = require('../../../lab/api');
const { ownPlace, stateOf, resultsOf, fixtureApp, portsFree, isUp } = require('../../helper');

const PACED = fixtureApp('paced');
const optionsOf = (place) => ({
  portBase: Number(place[place.indexOf('--port-base') + 1]),
  stateDir: stateOf(place),
  resultsDir: resultsOf(place),
});

test('a scenario from the library: its summary as --json prints it, the live figures as progress events', async () => {
  const place = await ownPlace({ ports: 70 });
  const figures = [];
  const lines = [];
  const run = lab
    .scenario({
      endpoint: 'ping',
      scenario: 'load',
      deployment: 'single',
      duration: '12s',
      rate: 20,
      ...optionsOf(place),
    })
    .on('progress', (f) => figures.push(f))
    .on('log', (l) => lines.push(l));
  const summary = await run;
  expect(run.exitCode).toBe(0);
  // 240 requests were sent (20/s for 12 s); the figures a second apart count them as they
  // went, the last one when the load ended.
  const sent = figures.map((f) => f.sent);
  expect(sent.length).toBeGreaterThanOrEqual(5);
  expect(sent).toEqual([...sent].sort((a, b) => a - b));
  expect(sent.at(-1)).toBe(240);
  expect(summary).toMatchObject({ endpoint: 'ping', scenario: 'load', requestsSent: 240 });
  expect(figures.at(-1)).toEqual(expect.objectContaining({ totalS: expect.any(Number), errors: 0 }));
  // What a terminal shows, without the lab's prefix; no progress line among them.
  expect(lines.some((l) => /^deploying|single/.test(l))).toBe(true);
  expect(lines.some((l) => l.startsWith('lab-progress') || l.startsWith('lab: '))).toBe(false);
  expect(await isUp(stateOf(place))).toBe(false);
}, 240000);

test('a refusal from the run itself (not the options) carries the command line code; nothing started', async () => {
  const place = await ownPlace();
  // A folder that is not one: what the command refuses once it reads it, after the options.
  const file = path.join(resultsOf(place), 'a-file');
  fs.writeFileSync(file, 'mine\n');
  const err = await lab
    .capacity({ endpoint: '/work', app: PACED, deployments: 'single', ...optionsOf(place), runDir: file })
    .catch((e) => e);
  expect(err).toMatchObject({ name: 'LabError', exitCode: 2 });
  expect(err.code).toMatch(/^LAB_ERR_/);
  expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
  const typo = await lab.capacity({ endpoint: '/work', maxRat: 3 }).catch((e) => e);
  expect(typo.code).toBe('LAB_ERR_UNKNOWN_FLAG');
}, 60000);

test('an AbortSignal mid-search: everything stopped, capacity.json kept and said interrupted', async () => {
  const place = await ownPlace({ ports: 70 });
  const ac = new AbortController();
  const run = lab
    .capacity({
      endpoint: '/work?ms=10',
      app: PACED,
      deployments: ['single', 'replicated'],
      start: 20,
      hold: '3s',
      warmup: '1s',
      repetitions: 1,
      signal: ac.signal,
      ...optionsOf(place),
    })
    // (Aborted once the first level is said, held or not.)
    .on('log', (l) => {
      if (/^single: 20\/s -> /.test(l)) ac.abort();
    });
  const err = await run.catch((e) => e);
  expect(err.code).toBe('LAB_ERR_INTERRUPTED');
  expect(run.exitCode).toBe(130);
  const results = resultsOf(place);
  const [dir] = fs.readdirSync(results).filter((n) => n.includes('capacity'));
  const out = JSON.parse(fs.readFileSync(path.join(results, dir, 'capacity.json'), 'utf8'));
  expect(out.status).toBe('interrupted');
  expect(out.levels[0]).toMatchObject({ rate: 20 });
  expect(await isUp(stateOf(place))).toBe(false);
  expect(await portsFree(optionsOf(place).portBase, 11)).toBe(true);
  // Aborted before it starts: nothing runs at all.
  const early = await lab.down({ stateDir: stateOf(place), signal: AbortSignal.abort() }).catch((e) => e);
  expect(early.code).toBe('LAB_ERR_INTERRUPTED');
}, 240000);
