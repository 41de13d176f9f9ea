'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readScript } = require('../../../lab/scenario/from-artillery');
const { refusalOf } = require('../../helper');

// Artillery's ws engine's scenarios as the lab reads them (lab/scenario/artillery-ws.js).
const write = (text) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ws-script-')), 'ws.yml');
  fs.writeFileSync(file, text);
  return file;
};
const script = (flow, config = '') =>
  write(
    `config:\n  target: ws://127.0.0.1:1\n  phases: [{ duration: 1, arrivalRate: 1 }]\n${config}scenarios:\n  - engine: ws\n    flow:\n${flow}`,
  );
const refusal = (file) => refusalOf(() => readScript(file));

test('a ws flow: its connect, its messages (text, JSON, with a capture), a wait, a loop; config.ws and its timeout', () => {
  const m = readScript(
    script(
      `      - connect: { target: "ws://127.0.0.1:2/chat", headers: { x-a: b }, rejectUnauthorized: false }
      - send: hello
      - send: { zip: 1 }
      - send: { payload: ask, capture: { json: "$.echo", as: said } }
      - wait: { match: { json: "$.ok", value: "true" } }
      - think: 1
      - loop:
          - send: "n {{ $loopCount }}"
        count: 2
`,
      '  timeout: 3\n  ws:\n    subprotocols: [json]\n',
    ),
  );
  const [flow] = m.flows;
  expect(flow.engine).toBe('ws');
  expect(flow.connect).toEqual({
    target: 'ws://127.0.0.1:2/chat',
    headers: { 'x-a': 'b' },
    subprotocols: null,
    options: { rejectUnauthorized: false },
  });
  expect(flow.steps.map((s) => Object.keys(s)[0])).toEqual(['ws', 'ws', 'ws', 'ws', 'think', 'loop']);
  expect(flow.steps[0].ws).toEqual({ payload: 'hello', capture: [], match: [] });
  expect(flow.steps[1].ws.payload).toEqual({ zip: 1 });
  expect(flow.steps[2].ws).toEqual({ payload: 'ask', capture: [{ json: '$.echo', as: 'said' }], match: [] });
  expect(flow.steps[3].ws.payload).toBeUndefined();
  expect(m.ws).toEqual({ subprotocols: ['json'], timeoutS: 3 });
  expect(m.features).toEqual(expect.arrayContaining(['ws']));
  expect(m.foreign).toEqual([]);
});

test('refused with the line: a wait with nothing to read, a send with nothing to send; a proxy or a connect function is Artillery’s', () => {
  expect(refusal(script('      - wait: { payload: x }\n'))).toMatchObject({ code: 'LAB_ERR_SCENARIO_FILE' });
  expect(refusal(script('      - wait: { payload: x }\n')).message).toMatch(/flow\[0\]\.wait.*capture or match/);
  expect(refusal(script('      - send: null\n')).message).toMatch(/flow\[0\]\.send.*a message to send/);
  const proxied = readScript(script('      - send: hi\n', '  ws:\n    proxy: { url: "http://proxy:1" }\n'));
  expect(proxied.foreign.map((f) => f.feature)).toEqual(['a WebSocket proxy (config.ws.proxy)']);
  const fn = readScript(script('      - connect: { function: open }\n      - send: hi\n'));
  expect(fn.foreign.map((f) => f.feature)).toEqual(['a connect function']);
});
