'use strict';

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
const refusal = (file, o) => {
  try {
    readScript(file, o);
  } catch (err) {
    return { code: err.code, exit: err.exitCode, message: err.message };
  }
  return null;
};

test('an ordinary script becomes the model: phases, a flow with a capture and a think time, a payload, ensure', () => {
  const m = readScript(path.join(SCRIPTS, 'shop-flow.yml'));
  expect(m.phases).toEqual([
    { name: 'warm up', duration: 3, arrivalRate: 10 },
    { name: 'busy', duration: 4, arrivalRate: 20 },
  ]);
  expect(requestNames(m)).toEqual(['GET /api/items', 'POST /api/cart']);
  const [get, think, post] = m.flows[0].steps;
  expect(get.request.capture).toEqual([{ json: '$.items[0].name', keys: ['items', 0, 'name'], as: 'itemName' }]);
  expect(think).toEqual({ think: 0.2 });
  expect(post.request.json).toEqual({ item: '{{ itemName }}', user: '{{ user }}', qty: '{{ qty }}' });
  expect(m.payload[0].rows).toEqual([
    ['ann', '1'],
    ['bob', '2'],
    ['cyd, jr', '3'],
  ]);
  expect(m.ensure).toEqual(['p99<5000']);
  expect([...m.features].sort()).toEqual(['capture', 'flows', 'payload', 'templates', 'think']);
  expect(m.foreign).toEqual([]);
});

test('--scale and --rate-scale apply to its phases', () => {
  const m = readScript(path.join(SCRIPTS, 'shop-flow.yml'), { scale: 2, rateScale: 0.5 });
  expect(m.phases).toEqual([
    { name: 'warm up x0.5', duration: 6, arrivalRate: 5 },
    { name: 'busy x0.5', duration: 8, arrivalRate: 10 },
  ]);
});

test('what only Artillery runs is kept by name, with where it is', () => {
  const m = readScript(path.join(SCRIPTS, 'socketio.yml'));
  expect(m.foreign.map((f) => f.feature)).toEqual(['the socketio engine', 'Socket.IO emit steps']);
  expect(m.foreign[0].where).toBe('scenarios[0].engine');
  expect(m.features).toContain('weights');
});

test('a malformed script: the file, the line and the field', () => {
  const broken = path.join(SCRIPTS, 'broken.yml');
  expect(refusal(broken)).toEqual({
    code: 'LAB_ERR_SCENARIO_FILE',
    exit: 2,
    message: `malformed scenario file ${broken}:12: scenarios[0].flow[1].post.jsn: not a field of a request`,
  });
  const yaml = write('config:\n  phases:\n    - duration: 1\n      arrivalRate: [1\nscenarios: []\n');
  expect(refusal(yaml).message).toMatch(new RegExp(`^malformed scenario file ${yaml}:\\d+: `));
  const phase = write(
    'config:\n  phases:\n    - duration: 0\n      arrivalRate: 1\nscenarios:\n  - flow:\n      - get: { url: / }\n',
  );
  expect(refusal(phase).message).toBe(
    `malformed scenario file ${phase}:3: config.phases[0].duration: a duration above 0 (seconds, or like 90s, 10m)`,
  );
  const none = write('config:\n  phases:\n    - duration: 1\n      arrivalRate: 1\n');
  expect(refusal(none).message).toMatch(/:\d+: scenarios: a list of one or more scenarios$/);
  const step = write(
    'config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\nscenarios:\n  - flow:\n      - gett: { url: / }\n',
  );
  expect(refusal(step).message).toMatch(/:5: scenarios\[0\]\.flow\[0\]\.gett: not a step Artillery takes/);
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

test('config.ensure in its three forms; a metric the lab does not measure is refused by name', () => {
  const withEnsure = (ensure) =>
    write(
      `config:\n  phases: [{ duration: 1, arrivalRate: 1 }]\n  ensure: ${JSON.stringify(ensure)}\nscenarios:\n  - flow:\n      - get: { url: / }\n`,
    );
  expect(readScript(withEnsure({ p95: 200, maxErrorRate: 1 })).ensure).toEqual(['p95<=200', 'errors<=1%']);
  expect(
    readScript(withEnsure({ conditions: [{ expression: 'http.response_time.p99 < 250 and vusers.failed == 0' }] }))
      .ensure,
  ).toEqual(['p99<250', 'errors<=0']);
  expect(refusal(withEnsure({ thresholds: [{ 'http.request_rate': 100 }] })).message).toMatch(
    /config\.ensure\.thresholds\[0\]: a threshold on http\.request_rate, which the lab does not measure/,
  );
});
