'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readScript } = require('../../../../lab/scenario/from-artillery');
const { prepareFlows, CUT, ARTILLERY_UA } = require('../../../../lab/generators/vu/flow');

// The flows' interpreter without a wire: a fake engine answers each request from a table of
// the test's own, and records what would have been sent. (The conformance e2e suite compares
// the same interpreter with Artillery itself, request by request, on a real server.)
const TARGET = 'http://127.0.0.1:9';
const modelOf = (yaml) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flow-')), 'x.yml');
  fs.writeFileSync(file, `config:\n  target: ${TARGET}\n  phases: [{ duration: 1, arrivalRate: 1 }]\n${yaml}`);
  return readScript(file);
};

// Runs one virtual user of the model's first flow; answer(parts, n) gives each answer
// ({ status, headers, text }) or a string (a wire error).
function runOne(model, answer, o = {}) {
  const flows = prepareFlows(model, { target: TARGET, random: () => 0.5, ...o });
  const sent = [];
  const errors = [];
  const io = {
    closedEnd: Infinity,
    runEnd: o.runEnd ?? Infinity,
    send(step, vu, due, parts, then) {
      sent.push({ name: step.name, method: parts.method || step.method, ...parts, body: parts.body?.toString() });
      const res = answer(parts, sent.length);
      setImmediate(() => (typeof res === 'string' ? then(false, due + 1, res) : then(true, due + 1, res)));
    },
    vuError: (code) => errors.push(code),
    custom() {},
    expected() {},
  };
  return new Promise((resolve) => {
    const flow = flows.pick();
    const ctx = flows.context();
    flows.run(flow.steps, ctx, o.due ?? 1000, io, (ok, at, code) => resolve({ ok, at, code, sent, errors, ctx }), flow);
  });
}
const json = (body, headers = {}) => ({
  status: 200,
  headers: { 'content-type': 'application/json', ...headers },
  text: JSON.stringify(body),
});

test("a request without templates is built once, with Artillery's headers and what its client adds", async () => {
  const model = modelOf(`scenarios:\n  - flow:\n      - post: { url: /a }\n      - get: { url: "/b?x=1" }\n`);
  const r = await runOne(model, () => ({ status: 200, headers: {}, text: '' }));
  expect(r.ok).toBe(true);
  expect(r.sent.map((s) => [s.method, s.path, s.fixed])).toEqual([
    ['POST', '/a', true],
    ['GET', '/b?x=1', true],
  ]);
  expect(r.sent[0].headers).toMatchObject({
    'user-agent': ARTILLERY_UA,
    // (got 14's list: zstd where Node decompresses it, as Node 24 does.)
    'accept-encoding': process.versions.zstd ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br',
    'content-length': '0',
  });
  expect(r.sent[1].headers['content-length']).toBeUndefined();
});

test('a capture feeds a later URL and body; a failed capture ends the virtual user as its own error', async () => {
  const model = modelOf(`scenarios:
  - flow:
      - get:
          url: /items
          capture: { json: "$.items[0].id", as: id }
      - post: { url: "/items/{{ id }}", json: { id: "{{ id }}" } }
`);
  const good = await runOne(model, (parts) => (parts.path === '/items' ? json({ items: [{ id: 7 }] }) : json({})));
  expect(good.ok).toBe(true);
  expect(good.sent[1]).toMatchObject({ path: '/items/7', body: '{"id":7}' });
  expect(good.sent[1].headers['content-type']).toBe('application/json');
  const bad = await runOne(model, () => json({ nothing: true }));
  expect(bad.ok).toBe(false);
  expect(bad.sent).toHaveLength(1);
  expect(bad.code).toBe('Failed capture or match');
  expect(bad.errors).toEqual(['Failed capture or match']);
});

test("a Set-Cookie starts the virtual user's jar; its cookie goes with the next request, not the one that set it", async () => {
  const model = modelOf(`scenarios:\n  - flow:\n      - post: { url: /login }\n      - get: { url: /me }\n`);
  const r = await runOne(model, (parts) =>
    parts.path === '/login' ? { status: 200, headers: { 'set-cookie': ['sid=abc; Path=/'] }, text: '' } : json({}),
  );
  expect(r.sent[0].headers.cookie).toBeUndefined();
  expect(r.sent[1].headers.cookie).toBe('sid=abc');
  expect(r.sent[1].fixed).toBe(false);
});

test('redirects are followed, each hop a request; a 303 turns a POST into a GET without a body; ten at most', async () => {
  const model = modelOf(`scenarios:\n  - flow:\n      - post: { url: /form, json: { a: 1 } }\n`);
  const r = await runOne(model, (parts) =>
    parts.path === '/form' ? { status: 303, headers: { location: '/done' }, text: '' } : json({}),
  );
  expect(r.ok).toBe(true);
  expect(r.sent.map((s) => [s.method, s.path, s.body ?? null])).toEqual([
    ['POST', '/form', '{"a":1}'],
    ['GET', '/done', null],
  ]);
  expect(r.sent[1].headers['content-length']).toBeUndefined();
  const loop = await runOne(model, () => ({ status: 302, headers: { location: '/again' }, text: '' }));
  expect(loop.ok).toBe(false);
  expect(loop.code).toBe('ERR_TOO_MANY_REDIRECTS');
  expect(loop.sent).toHaveLength(11);
});

test('a loop with a count runs its steps that many times, $loopCount counting; over a list, each element', async () => {
  const model = modelOf(`scenarios:
  - flow:
      - loop:
          - get: { url: "/n/{{ $loopCount }}" }
        count: 3
      - loop:
          - get: { url: "/e/{{ $loopElement }}" }
        over: [red, blue]
`);
  const r = await runOne(model, () => json({}));
  expect(r.sent.map((s) => s.path)).toEqual(['/n/0', '/n/1', '/n/2', '/e/red', '/e/blue']);
});

test('a wire error fails the virtual user without counting it twice; a closed loop past its end cuts the flow', async () => {
  const model = modelOf(`scenarios:\n  - flow:\n      - get: { url: /a }\n      - get: { url: /b }\n`);
  const wire = await runOne(model, () => 'ECONNREFUSED');
  expect(wire).toMatchObject({ ok: false, code: 'ECONNREFUSED', errors: [] });
  expect(wire.sent).toHaveLength(1);
  const flows = prepareFlows(model, { target: TARGET });
  const cut = await new Promise((resolve) => {
    const io = { closedEnd: 500, send: () => resolve('sent'), vuError() {}, expected() {} };
    flows.run(flows.flows[0].steps, flows.context(), 1000, io, (ok) => resolve(ok));
  });
  expect(cut).toBe(CUT);
});

test('weighted flows are picked by weight; a virtual user of one fixed request is not "multi"', () => {
  const model = modelOf(`scenarios:
  - name: rare
    weight: 1
    flow: [{ get: { url: /r } }]
  - name: common
    weight: 3
    flow: [{ get: { url: /c } }]
`);
  const at = (u) => prepareFlows(model, { target: TARGET, random: () => u }).pick().name;
  expect([at(0.1), at(0.24), at(0.26), at(0.99)]).toEqual(['rare', 'rare', 'common', 'common']);
  expect(prepareFlows(model, { target: TARGET }).multi).toBe(false);
});

test("a request's probability, as Artillery draws it: an integer from 0 to 100 under it (so 100 skips 1 in 101)", async () => {
  const model = modelOf(
    `scenarios:\n  - flow:\n      - get: { url: /maybe, probability: 30 }\n      - get: { url: /never, probability: 0 }\n      - get: { url: /capped, probability: 500 }\n      - get: { url: /always }\n`,
  );
  const ok = () => ({ status: 200, headers: {}, text: '' });
  const paths = async (r) => (await runOne(model, ok, { random: () => r })).sent.map((s) => s.path);
  // 0.29 draws 29 (< 30: sent); 0.3 draws 30 (not under 30); 0.995 draws 100 (not under 100).
  expect(await paths(0.29)).toEqual(['/maybe', '/capped', '/always']);
  expect(await paths(0.3)).toEqual(['/capped', '/always']);
  expect(await paths(0.995)).toEqual(['/always']);
  expect(model.features).toContain('probability');
});

test("parallel steps: made at once, on the wire one at a time (Artillery's one socket a virtual user), the flow on after the last, a capture shared; a failure ends it", async () => {
  const model = modelOf(`scenarios:
  - flow:
      - parallel:
          - get: { url: /a }
          - get: { url: /b, capture: { json: "$.t", as: t } }
          - get: { url: /c }
      - get: { url: "/d/{{ t }}" }
      - parallel:
          - get: { url: /e }
`);
  expect(model.features).toEqual(expect.arrayContaining(['parallel', 'flows']));
  // Each answer comes 100 ms after its due time; what was on the wire when each was sent is kept.
  const flows = prepareFlows(model, { target: TARGET, random: () => 0.5 });
  const sent = [];
  let inFlight = 0;
  const io = {
    closedEnd: Infinity,
    send(step, vu, due, parts, then) {
      inFlight += 1;
      sent.push({ path: parts.path, due, inFlight });
      setImmediate(() => {
        inFlight -= 1;
        then(true, due + 100, json({ t: 'x' }));
      });
    },
    vuError() {},
    custom() {},
    expected() {},
  };
  const r = await new Promise((resolve) => {
    const flow = flows.pick();
    flows.run(flow.steps, flows.context(), 1000, io, (ok, at) => resolve({ ok, at }), flow);
  });
  expect(r).toEqual({ ok: true, at: 1300 });
  expect(sent).toEqual([
    { path: '/a', due: 1000, inFlight: 1 },
    { path: '/b', due: 1000, inFlight: 1 },
    { path: '/c', due: 1000, inFlight: 1 },
    { path: '/d/x', due: 1100, inFlight: 1 },
    { path: '/e', due: 1200, inFlight: 1 },
  ]);
  // A failed one fails the virtual user, as async's parallelLimit ends on the first error.
  const failing = await runOne(model, (parts) => (parts.path === '/b' ? 'ECONNRESET' : json({ t: 'x' })));
  expect(failing.ok).toBe(false);
  expect(failing.code).toBe('ECONNRESET');
  expect(failing.sent.map((s) => s.path)).toEqual(['/a', '/b', '/c']);
});

test("a loop without end goes round until the run's end, its virtual user then stopped (neither completed nor failed)", async () => {
  const model = modelOf(`scenarios:\n  - flow:\n      - loop:\n          - get: { url: "/r/{{ $loopCount }}" }\n`);
  expect(model.flows[0].steps[0].loop.endless).toBe(true);
  expect(model.notes.map((n) => n.note).join('\n')).toMatch(
    /a loop without end .* the lab's engines end it at the run's end/,
  );
  const now = Date.now();
  // (Each answer comes 1 ms after its send, in the fake's time: 20 rounds before the end.)
  const r = await runOne(model, () => json({}), { due: now, runEnd: now + 20 });
  expect(r.ok).toBe(CUT);
  expect(r.sent.length).toBeGreaterThanOrEqual(1);
  expect(r.sent.length).toBeLessThanOrEqual(20);
  expect(r.sent.map((q) => q.path)).toEqual(r.sent.map((_, i) => `/r/${i}`));
});
