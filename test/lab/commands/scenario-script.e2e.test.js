'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, ownPlace, tmpStateDir, errorCode, ROOT, jsonOf, flagsOf } = require('../../helper');

// Your scenario (issue 39): an ordinary Artillery script the lab has never seen
// (test/fixtures/scripts/shop-flow.yml: two phases, a GET whose answer is captured, a think
// time, a POST of JSON using the capture and a CSV row), against your own service
// (test/fixtures/apps/shop, which answers 400 to a cart without its item), run by every
// generator through the one scenario model.
const SHOP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
const SCRIPTS = path.join(ROOT, 'test', 'fixtures', 'scripts');
const FLOW = path.join(SCRIPTS, 'shop-flow.yml');

async function runScript(script, generator, extra = []) {
  const place = await ownPlace({ ports: 70 });
  const r = await lab(
    [
      'scenario',
      '--script',
      script,
      'single',
      ...flagsOf({ app: SHOP, generator: generator, graphite: false, json: true }),
      ...extra,
      ...place,
    ],
    { timeoutMs: 150000 },
  );
  return { r, summary: r.stdout.trim() ? jsonOf(r) : null };
}

const within1pct = (n, of) => Math.abs(n - of) <= Math.ceil(of * 0.01);

describe.each([['fast'], ['artillery'], ['closed']])('the script with %s', (generator) => {
  test('each request counted as the script asks, by name, with its codes; percentiles no higher than the max', async () => {
    const closed = generator === 'closed';
    const { r, summary: s } = await runScript(FLOW, generator, closed ? ['--connections', '4'] : []);
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect(s.status).toBe('completed');
    expect(s.requests.map((q) => q.name)).toEqual(['GET /api/items', 'POST /api/cart']);
    const [get, post] = s.requests;
    // Open loop: 3 s at 10/s and 4 s at 20/s, each virtual user a GET then a POST.
    const asked = closed ? get.launched : 110;
    expect(within1pct(get.completed, asked)).toBe(true);
    // (A closed loop stops at its length even mid-flow: each of its 4 connections may have
    // sent its GET and not yet its POST.)
    if (closed) expect(post.completed).toBeGreaterThanOrEqual(get.completed - 4);
    else expect(within1pct(post.completed, asked)).toBe(true);
    expect(get.codes).toEqual({ 200: get.completed });
    // The POST's body carried the captured item (the service answers 400 without it).
    expect(post.codes).toEqual({ 201: post.completed });
    for (const q of s.requests) {
      for (const k of ['p50', 'p95', 'p99']) expect(q.responseTimeMs[k]).toBeLessThanOrEqual(q.responseTimeMs.max);
    }
    expect(s.requestsSent).toBe(get.launched + post.launched);
    // config.ensure (the ensure plugin on) was honoured: by the lab, or by Artillery itself.
    expect(s.thresholds.map((t) => [t.text, t.ok])).toEqual([
      [generator === 'artillery' ? 'http.response_time.p99 < 5000' : 'p99<5000', true],
    ]);
    const report = fs.readFileSync(path.join(s.resultsDir, 'report.html'), 'utf8');
    expect(report).toMatch(/<h2>Requests<\/h2>/);
    expect(report).toContain('POST /api/cart');
    expect(r.code).toBe(0);
  }, 200000);
});

test('a per-request threshold that cannot hold fails the run, exit 99; one on no such request is refused, exit 2', async () => {
  const { r, summary: s } = await runScript(FLOW, 'fast', [
    '--ensure',
    'p99{POST /api/cart}<0.001',
    '--ensure',
    'errors{GET /api/items}<1%',
  ]);
  expect(r.code).toBe(99);
  expect(s.thresholds.map((t) => [t.name ?? null, t.ok])).toEqual([
    [null, true],
    ['POST /api/cart', false],
    ['GET /api/items', true],
  ]);
  const none = await lab([
    'scenario',
    '--script',
    FLOW,
    'single',
    '--ensure',
    'p99{GET /nope}<5',
    '--state-dir',
    tmpStateDir(),
  ]);
  expect({ exit: none.code, code: errorCode(none.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_FLAG_VALUE' });
  expect(none.stderr).toMatch(/no request named "GET \/nope"; its requests: GET \/api\/items, POST \/api\/cart/);
}, 200000);

test('a feature a generator cannot run is refused by name before anything starts, exit 2', async () => {
  const stateDir = tmpStateDir();
  const r = await lab([
    'scenario',
    '--script',
    path.join(SCRIPTS, 'playwright-engine.yml'),
    'single',
    '--generator',
    'fast',
    '--state-dir',
    stateDir,
  ]);
  expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_SCRIPT_FOREIGN' });
  expect(r.stderr).toMatch(
    /the script uses the playwright engine \(scenarios\[0\]\.engine\), which only Artillery runs: --generator artillery/,
  );
  expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  const keep = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    ...flagsOf({ generator: 'artillery', keepalive: true, stateDir: stateDir }),
  ]);
  expect(keep.stderr).toMatch(/--keepalive is for --generator fast or closed, not --generator artillery/);
  expect(keep.code).toBe(2);
  expect(errorCode(keep.stderr)).toBe('LAB_ERR_GENERATOR_FLAG');
  // A flag that makes sense only with another says which.
  const pipe = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    ...flagsOf({ generator: 'closed', pipelining: 4, stateDir: stateDir }),
  ]);
  expect(pipe.stderr).toMatch(/--pipelining needs --keepalive/);
  expect(pipe.code).toBe(2);
  expect(errorCode(pipe.stderr)).toBe('LAB_ERR_FLAG_NEEDS');
  expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
});

test('a field the lab does not know: fast and closed refuse it by name, Artillery gets it untouched; what Artillery refuses, refused with its line', async () => {
  const broken = path.join(SCRIPTS, 'broken.yml');
  const fast = await lab(['scenario', '--script', broken, 'single', '--generator', 'fast', '--plan']);
  expect(fast.code).toBe(2);
  expect(fast.stderr).toBe(
    "lab: the script has a field the lab's engines do not know: scenarios[0].flow[1].post.jsn (line 12); correct it, or have Artillery run the file as it is (it ignores what it does not know): --generator artillery [LAB_ERR_SCRIPT_UNKNOWN_FIELD]\n",
  );
  const art = await lab(['scenario', '--script', broken, 'single', '--generator', 'artillery', '--plan']);
  expect(art.code).toBe(0);
  expect(art.stdout).toMatch(
    /note: scenarios\[0\]\.flow\[1\]\.post\.jsn \(line 12\): not a field the lab knows, passed to Artillery untouched/,
  );
  const two = path.join(tmpStateDir(), 'two.yml');
  fs.writeFileSync(two, 'scenarios:\n  - flow:\n      - get: { url: /a }\n        post: { url: /b }\n');
  const r = await lab(['scenario', '--script', two, 'single', '--plan']);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `lab: malformed scenario file ${two}:3: scenarios[0].flow[0]: a step is one action, here get and post (as Artillery checks it) [LAB_ERR_SCENARIO_FILE]\n`,
  );
});

test('--print shows the script as the lab runs it: its target and scaled phases, the rest as written', async () => {
  const r = await lab(['scenario', '--script', FLOW, 'single', '--print', '--scale', '0.5', '--port-base', '9100']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/target: http:\/\/127\.0\.0\.1:9100/);
  expect(r.stdout).toMatch(/duration: 2\n\s+arrivalRate: 20/);
  expect(r.stdout).toMatch(/capture:\n\s+json: \$\.items\[0\]\.name/);
});
