'use strict';

const { refusalOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readScript } = require('../../../lab/scenario/from-artillery');
const { requestNames } = require('../../../lab/scenario/model');

const SCRIPTS = path.join(__dirname, '..', '..', 'fixtures', 'scripts');
const write = (text, name = 'x.yml') => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'script-')), name);
  fs.writeFileSync(file, text);
  return file;
};
const refusal = (file, o) => refusalOf(() => readScript(file, o));

test('an ordinary script becomes the model: phases, a flow with a capture and a think time, a payload, ensure', () => {
  const m = readScript(path.join(SCRIPTS, 'shop-flow.yml'));
  expect(m.phases).toEqual([
    { name: 'warm up', duration: 3, arrivalRate: 10 },
    { name: 'busy', duration: 4, arrivalRate: 20 },
  ]);
  expect(requestNames(m)).toEqual(['GET /api/items', 'POST /api/cart']);
  const [get, think, post] = m.flows[0].steps;
  expect(get.request.capture).toEqual([{ json: '$.items[0].name', as: 'itemName' }]);
  expect(think).toEqual({ think: 0.2 });
  expect(post.request.json).toEqual({ item: '{{ itemName }}', user: '{{ user }}', qty: '{{ qty }}' });
  // Numbers cast, as Artillery's CSV reader casts them.
  expect(m.payload[0].rows).toEqual([
    ['ann', 1],
    ['bob', 2],
    ['cyd, jr', 3],
  ]);
  // Said, not silent: where the lab's engines differ from Artillery on purpose.
  expect(m.notes.map((n) => n.where)).toEqual(['scenarios[0].flow[1].think']);
  expect(m.ensure).toEqual(['p99<5000']);
  expect([...m.features].sort()).toEqual(['capture', 'flows', 'payload', 'templates', 'think']);
  expect(m.foreign).toEqual([]);
  expect(m.unknown).toEqual([]);
});

test('--scale and --rate-scale apply to its phases', () => {
  const m = readScript(path.join(SCRIPTS, 'shop-flow.yml'), { scale: 2, rateScale: 0.5 });
  expect(m.phases).toEqual([
    { name: 'warm up x0.5', duration: 6, arrivalRate: 5 },
    { name: 'busy x0.5', duration: 8, arrivalRate: 10 },
  ]);
});

test('what only Artillery runs is kept by name, with where it is', () => {
  const m = readScript(path.join(SCRIPTS, 'playwright-engine.yml'));
  expect(m.foreign.map((f) => f.feature)).toEqual(['the playwright engine']);
  expect(m.foreign[0].where).toBe('scenarios[0].engine');
  expect(m.features).toContain('weights');
});

test('a malformed script (what Artillery refuses too): the file, the line and the field', () => {
  const yaml = write('config:\n  phases:\n    - duration: 1\n      arrivalRate: [1\nscenarios: []\n');
  expect(refusal(yaml).message).toMatch(new RegExp(`^malformed scenario file ${yaml}:\\d+: `));
  const phase = write(
    'config:\n  phases:\n    - duration: 0\n      arrivalRate: 1\nscenarios:\n  - flow:\n      - get: { url: / }\n',
  );
  expect(refusal(phase).message).toBe(
    `malformed scenario file ${phase}:3: config.phases[0].duration: a duration above 0 (seconds, or like 90s, 10min)`,
  );
  const none = write('config:\n  phases:\n    - duration: 1\n      arrivalRate: 1\n');
  expect(refusal(none).message).toMatch(/:\d+: scenarios: a list of one or more scenarios$/);
  const two = write('scenarios:\n  - flow:\n      - get: { url: / }\n        think: 1\n');
  expect(refusal(two).message).toMatch(/:3: scenarios\[0\]\.flow\[0\]: a step is one action, here get and think/);
  const noUrl = write('scenarios:\n  - flow:\n      - get: { name: x }\n');
  expect(refusal(noUrl).message).toMatch(
    /scenarios\[0\]\.flow\[0\]\.get\.url: a path like \/api\/items \(Artillery requires a url\)/,
  );
  expect(refusal('/no/such.yml')).toMatchObject({ exit: 2, message: '--script /no/such.yml: cannot read it (ENOENT)' });
  const json = write(
    JSON.stringify({
      config: { phases: [{ duration: 1, arrivalRate: 2 }] },
      scenarios: [{ flow: [{ get: { url: '/x' } }] }],
    }),
    'x.json',
  );
  expect(requestNames(readScript(json))).toEqual(['GET /x']);
});

test("a processor that is not there is refused before anything starts (Artillery's run fails on it too)", () => {
  const text = 'config:\n  processor: ./helpers.js\nscenarios:\n  - flow:\n      - function: f\n';
  const file = write(text);
  const helpers = path.join(path.dirname(file), 'helpers.js');
  expect(refusal(file)).toMatchObject({
    code: 'LAB_ERR_SCENARIO_FILE',
    exit: 2,
    message: `malformed scenario file ${file}:2: config.processor: ${helpers}: cannot read it (ENOENT)`,
  });
  fs.mkdirSync(helpers);
  expect(refusal(file).message).toMatch(/config\.processor: .*helpers\.js: not a regular file/);
  fs.rmdirSync(helpers);
  fs.writeFileSync(helpers, 'module.exports = { f: (ctx, ee, next) => next() };\n');
  expect(readScript(file).processor).toBe(helpers);
});

test('what Artillery takes is taken: unknown fields and steps are kept by name, not refused', () => {
  const broken = path.join(SCRIPTS, 'broken.yml');
  expect(readScript(broken).unknown).toEqual([{ where: 'scenarios[0].flow[1].post.jsn', line: 12 }]);
  const step = write(
    'config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\nscenarios:\n  - flow:\n      - gett: { url: / }\n',
  );
  expect(readScript(step).unknown).toEqual([{ where: 'scenarios[0].flow[0].gett', line: 5 }]);
  const top = write('version: 2\n$schema: x\nscenarios:\n  - flow:\n      - get: { url: / }\n');
  expect(readScript(top).unknown).toEqual([]);
});

test("Artillery's phases: duration strings, no phases, maxVusers, a rate of 0", () => {
  const m = readScript(
    write(
      'config:\n  phases:\n    - { duration: 10min, arrivalRate: 1 }\n    - { duration: 0.5 min, arrivalRate: 2, maxVusers: 3 }\n    - { duration: 9 seconds, arrivalRate: 0 }\n    - { duration: "5", arrivalCount: 5 }\nscenarios:\n  - flow:\n      - get: { url: / }\n',
    ),
  );
  expect(m.phases).toEqual([
    { name: 'phase 1', duration: 600, arrivalRate: 1 },
    { name: 'phase 2', duration: 30, arrivalRate: 2, maxVusers: 3 },
    { name: 'phase 3', duration: 9, arrivalRate: 0, pause: true },
    { name: 'phase 4', duration: 5, arrivalCount: 5 },
  ]);
  expect(m.features).toContain('maxVusers');
  const one = readScript(write('scenarios:\n  - flow:\n      - get: { url: / }\n'));
  expect(one.phases).toEqual([{ name: 'one virtual user', duration: 1, arrivalCount: 1 }]);
});

test('--environment and --overrides, as Artillery applies them; config templates from the environment', () => {
  const file = write(
    'config:\n  target: http://x\n  phases: [{ duration: 1, arrivalRate: 1 }]\n  environments:\n    slow: { phases: [{ duration: 7, arrivalRate: 2 }] }\n  variables: { who: "{{ $env.LAB_TEST_WHO }}" }\nscenarios:\n  - flow:\n      - get: { url: / }\n',
  );
  expect(readScript(file, { environment: 'slow' }).phases).toEqual([{ name: 'phase 1', duration: 7, arrivalRate: 2 }]);
  const over = readScript(file, { overrides: '{"config":{"phases":[{"duration":3,"arrivalRate":4}]}}' });
  expect(over.phases).toEqual([{ name: 'phase 1', duration: 3, arrivalRate: 4 }]);
  process.env.LAB_TEST_WHO = 'ann';
  expect(readScript(file).variables).toEqual({ who: 'ann' });
  delete process.env.LAB_TEST_WHO;
  expect(readScript(file, { environment: 'nope' }).notes[0].note).toMatch(/environment nope is not defined/);
  expect(() => readScript(file, { overrides: '{bad' })).toThrow(/--overrides '{bad': not JSON/);
});

test("Artillery's order: --overrides after the environment (they win), --variables over config.variables", () => {
  const file = write(
    'config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\n  environments:\n    slow: { phases: [{ duration: 7, arrivalRate: 2 }] }\n  variables: { who: script, greeting: "hi-{{ who }}" }\nscenarios:\n  - flow:\n      - get: { url: / }\n',
  );
  const both = readScript(file, {
    environment: 'slow',
    overrides: '{"config":{"phases":[{"duration":3,"arrivalRate":4}]}}',
  });
  expect(both.phases).toEqual([{ name: 'phase 1', duration: 3, arrivalRate: 4 }]);
  expect(readScript(file, { variables: { who: 'cli', n: 3 } }).variables).toEqual({
    who: 'cli',
    greeting: 'hi-cli',
    n: 3,
  });
});

test('--config FILE merged over the script; its processor found beside it; --payload for a payload without a path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'script-'));
  const at = (name, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const script = at(
    'tests/s.yml',
    'config:\n  target: http://x\n  variables: { who: script }\n  payload: { fields: [a] }\nscenarios:\n  - flow:\n      - get: { url: "/{{ who }}" }\n',
  );
  const config = at(
    'conf/c.yml',
    'config:\n  phases: [{ duration: 2, arrivalRate: 3 }]\n  variables: { who: config }\n  processor: ./p.js\n',
  );
  at('conf/p.js', 'module.exports = {};\n');
  const rows = at('rows.csv', 'x\ny\n');
  const m = readScript(script, { config, payload: rows });
  expect(m.phases).toEqual([{ name: 'phase 1', duration: 2, arrivalRate: 3 }]);
  expect(m.variables).toEqual({ who: 'config' });
  expect(m.processor).toBe(path.join(dir, 'conf', 'p.js'));
  expect(m.payload[0].rows).toEqual([['x'], ['y']]);
  expect(m.source.options).toEqual({ config, payload: rows });
  const notMap = at('conf/list.yml', '- a\n- b\n');
  expect(refusal(script, { config: notMap })).toEqual(
    expect.objectContaining({
      code: 'LAB_ERR_SCENARIO_FILE',
      message: expect.stringMatching(/config file is a mapping/),
    }),
  );
  expect(refusal(script, { config: path.join(dir, 'none.yml') })).toEqual(
    expect.objectContaining({
      code: 'LAB_ERR_FLAG_VALUE',
      message: expect.stringMatching(/--config .*none\.yml: cannot read it/),
    }),
  );
});

test('--scenario-name: the one scenario named (or matched as Artillery matches it); none or several refused', () => {
  const file = write(
    'config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\nscenarios:\n  - name: browse\n    flow: [{ get: { url: /a } }]\n  - name: buy\n    flow: [{ get: { url: /b } }]\n  - name: buy-more\n    flow: [{ get: { url: /c } }]\n',
  );
  expect(requestNames(readScript(file, { scenarioName: 'browse' }))).toEqual(['GET /a']);
  expect(requestNames(readScript(file, { scenarioName: '^buy-' }))).toEqual(['GET /c']);
  expect(refusal(file, { scenarioName: 'buy' }).message).toMatch(/2 scenarios match it \(buy, buy-more\)/);
  expect(refusal(file, { scenarioName: 'sell' }).message).toMatch(
    /no scenario of the script has that name \(browse, buy, buy-more\)/,
  );
  expect(refusal(file, { scenarioName: '(' })).toEqual(
    expect.objectContaining({ code: 'LAB_ERR_FLAG_VALUE', message: expect.stringMatching(/not a regular expression/) }),
  );
});

test('--dotenv: its values for {{ $env.X }} in the config, the environment winning; kept for the generator', () => {
  const file = write(
    'config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\n  variables: { a: "{{ $env.LAB_T_A }}", b: "{{ $env.LAB_T_B }}" }\nscenarios:\n  - flow: [{ get: { url: / } }]\n',
  );
  process.env.LAB_T_B = 'from-env';
  try {
    const m = readScript(file, { env: { LAB_T_A: 'from-file', LAB_T_B: 'from-file' } });
    expect(m.variables).toEqual({ a: 'from-file', b: 'from-env' });
    expect(m.env).toEqual({ LAB_T_A: 'from-file', LAB_T_B: 'from-file' });
  } finally {
    delete process.env.LAB_T_B;
  }
});

test('config.ensure as Artillery judges it: only with its plugin, strict comparisons, maxErrorRate on virtual users', () => {
  const withEnsure = (ensure, plugin = true) =>
    write(
      `config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\n${plugin ? '  plugins: { ensure: {} }\n' : ''}  ensure: ${JSON.stringify(ensure)}\nscenarios:\n  - flow:\n      - get: { url: / }\n`,
    );
  expect(readScript(withEnsure({ p95: 200, maxErrorRate: 1 })).ensure).toEqual(['p95<200', 'vusers.failed<=1%']);
  expect(
    readScript(
      withEnsure({
        conditions: [
          { expression: 'http.response_time.p99 < 250 and vusers.failed == 0' },
          { expression: 'http.response_time.max < 9', strict: false },
        ],
      }),
    ).ensure,
  ).toEqual(['p99<250', 'vusers.failed<=0', 'max<9 (optional)']);
  // Without the plugin Artillery 2 does not judge it: neither does the lab, and it says so.
  const without = readScript(withEnsure({ p95: 200 }, false));
  expect(without.ensure).toEqual([]);
  expect(without.notes[0].note).toMatch(/without the ensure plugin/);
  // A metric the lab does not measure: kept by name (Artillery judges it; the lab's engines refuse).
  expect(readScript(withEnsure({ thresholds: [{ 'http.request_rate': 100 }] })).foreign[0]).toEqual({
    feature: 'a threshold on http.request_rate (checks on metrics the lab does not measure)',
    where: 'config.ensure.thresholds[0]',
  });
});

test("parallel steps are read (100 at once, Artillery's engine's limit; a limit beside them refused, as Artillery's check refuses it); ES module and TypeScript processors are taken", () => {
  const m = readScript(
    write(`config:
  target: http://127.0.0.1:1
  phases: [{ duration: 1, arrivalRate: 1 }]
scenarios:
  - flow:
      - parallel:
          - get: { url: /a }
          - post: { url: /b }
      - parallel:
          - get: { url: /c }
`),
  );
  expect(m.flows[0].steps.map((s) => s.parallel.limit)).toEqual([100, 100]);
  expect(requestNames(m)).toEqual(['GET /a', 'POST /b', 'GET /c']);
  expect(m.foreign).toEqual([]);
  const bad = refusal(
    write(`config:
  target: http://127.0.0.1:1
scenarios:
  - flow:
      - parallel:
          - get: { url: /a }
        limit: 2
`),
  );
  expect(bad).toMatchObject({ code: 'LAB_ERR_SCENARIO_FILE', exit: 2 });
  expect(bad.message).toMatch(/scenarios\[0\]\.flow\[0\].*a step is one action, here parallel and limit/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'script-processor-'));
  for (const f of ['p.mjs', 'p.ts']) fs.writeFileSync(path.join(dir, f), 'export const x = 1;\n');
  const withProcessor = (f) =>
    readScript(
      write(
        `config:\n  target: http://127.0.0.1:1\n  processor: ${path.join(dir, f)}\nscenarios:\n  - flow:\n      - function: x\n`,
      ),
    );
  expect(withProcessor('p.mjs').foreign).toEqual([]);
  expect(withProcessor('p.ts').foreign).toEqual([]);
});

test("formData is read for the lab's engines: values, typed values and files from the script's folder; a missing file refused now", () => {
  const script = (fromFile) =>
    write(`config:
  target: http://127.0.0.1:1
scenarios:
  - flow:
      - post:
          url: /up
          formData:
            a: one
            n: 2
            f: { fromFile: ${fromFile}, contentType: application/json }
`);
  const file = script('./data.json');
  fs.writeFileSync(path.join(path.dirname(file), 'data.json'), '{}\n');
  const m = readScript(file);
  expect(m.foreign).toEqual([]);
  expect(m.features).toEqual(expect.arrayContaining(['formData']));
  expect(m.flows[0].steps[0].request.formData).toEqual({
    a: 'one',
    n: 2,
    f: { fromFile: './data.json', contentType: 'application/json' },
  });
  const missing = refusal(script('./nowhere.json'));
  expect(missing).toMatchObject({ code: 'LAB_ERR_SCENARIO_FILE', exit: 2 });
  expect(missing.message).toMatch(/formData\.f\.fromFile.*nowhere\.json: cannot read it \(ENOENT\)/);
  // A fromFile that is not a path; Artillery's length quirk, by name.
  expect(refusal(script('[1]'))).toMatchObject({ code: 'LAB_ERR_SCENARIO_FILE' });
  const quirk = readScript(
    write(`config:
  target: http://127.0.0.1:1
scenarios:
  - flow:
      - post: { url: /up, formData: { a: one }, setContentLengthHeader: true }
`),
  );
  expect(quirk.foreign.map((f) => f.feature)).toEqual([
    "setContentLengthHeader (a formData upload's length said to be its file's size)",
  ]);
});
