'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, errorCode, freePortBase, jsonOf, flagsOf } = require('../../helper');
const { tcpFree } = require('../../../lab/topology/ports');

describe('npm run capacity: bad input', () => {
  // Each row: the arguments and the word the message must name. Nothing is deployed.
  test.each([
    [['--memory', 'lots'], '--memory', 'LAB_ERR_INVALID_VALUE'],
    [['--memory', '1M'], '--memory', 'LAB_ERR_INVALID_VALUE'],
    [['--levels', '1000'], '--levels', 'LAB_ERR_INVALID_VALUE'],
    [['--levels', '1000,1000'], '--levels', 'LAB_ERR_FLAG_VALUE'],
    // Two levels always fit a line perfectly: refused.
    [['--levels', '1000,2000'], 'at least three', 'LAB_ERR_FLAG_VALUE'],
    [['--levels', '1000,9000000'], '--levels', 'LAB_ERR_FLAG_VALUE'],
    [['--hold', '0'], '--hold', 'LAB_ERR_INVALID_VALUE'],
    [['--ramp-per-s', '0'], '--ramp-per-s', 'LAB_ERR_INVALID_VALUE'],
    [['--memory', '500M', 'stray'], 'stray', 'LAB_ERR_UNEXPECTED_ARG'],
  ])('%j exits 2 naming %s', async (args, named, code) => {
    const r = await lab(['capacity', ...args, '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe(code);
    expect(r.stderr).toContain(named);
  });

  test('--help prints the usage', async () => {
    const r = await lab(['capacity', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage: npm run capacity/);
  });
});

describe('npm run capacity: a small run end to end', () => {
  // Small levels and a low --max keep it about a minute on a busy 2-core machine; the
  // memory figures themselves are the benchmark's (bench/signal.js), not asserted here.
  // Each level is read over the second half of its hold from /stats, polled once a second:
  // 5 s holds, so that each window spans two polls or more. (At 3 s, a 1.5 s window, the
  // first level went unread once beside five other files, its CPU counted: no poll fell
  // in it, or the participants had not all connected yet.)
  test('holds each level, fits, verifies up to --max, writes capacity.json and .html, leaves nothing', async () => {
    const stateDir = tmpStateDir();
    const results = tmpStateDir();
    const base = await freePortBase();
    const r = await lab(
      [
        'capacity',
        ...flagsOf({
          levels: '50,100,150',
          hold: '5s',
          max: 200,
          memory: '400M',
          portBase: base,
          stateDir: stateDir,
          resultsDir: results,
          json: true,
        }),
      ],
      { timeoutMs: 150000 },
    );
    expect(r.code).toBe(0);
    const out = jsonOf(r);
    // (With the lab's words about each level when one is missing: "not held (the service had N)".)
    const levels = out.estimate.points.map((pt) => pt.connections);
    expect({ levels, log: levels.length === 3 ? '' : r.stderr.slice(-1500) }).toEqual({
      levels: [50, 100, 150],
      log: '',
    });
    for (const pt of out.estimate.points) expect(pt.bytes).toBeGreaterThan(10 * 2 ** 20);
    expect(out.estimate.fit).not.toBeNull();
    expect(out.limitBytes).toBe(400 * 2 ** 20);
    // 400 MiB holds far more than 200 participants: the verification reaches --max.
    expect(out.verification.failure).toBeNull();
    expect(out.verification.peak).toBe(200);
    expect(out.verification.limitedBy).toBe('the asked maximum');
    expect(out.seed.estimate).toBe(11628);
    for (const f of ['capacity.json', 'capacity.html']) expect(fs.existsSync(path.join(out.resultsDir, f))).toBe(true);
    expect(fs.readFileSync(path.join(out.resultsDir, 'capacity.html'), 'utf8')).toMatch(/11628/);
    for (let p = base; p < base + 15; p++) expect(await tcpFree(p, '127.0.0.1')).toBe(true);
  }, 180000);
});
