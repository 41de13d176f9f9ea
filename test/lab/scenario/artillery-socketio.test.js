'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readScript } = require('../../../lab/scenario/from-artillery');
const { refusalOf } = require('../../helper');

// Artillery's socketio engine's scenarios as the lab reads them (lab/scenario/artillery-socketio.js).
const write = (text) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sio-script-')), 'sio.yml');
  fs.writeFileSync(file, text);
  return file;
};
const script = (flow, config = '', scenario = '', engine = 'socketio') =>
  write(
    `config:\n  target: http://127.0.0.1:1\n  phases: [{ duration: 1, arrivalRate: 1 }]\n${config}scenarios:\n  - engine: ${engine}\n${scenario}    flow:\n${flow}`,
  );
const refusal = (file) => refusalOf(() => readScript(file));

test('a socketio flow: emits (a channel and data, a list), a response, an acknowledgement, a namespace, HTTP steps, a loop; its options and timeout', () => {
  const m = readScript(
    script(
      `      - emit: { channel: echo, data: hello }
      - emit: { channel: echo, data: { a: 1 } }
        response: { on: echoed, args: { a: 1 }, capture: { json: "$.0.a", as: a } }
      - namespace: /chat
        emit: [say, hi]
        acknowledge: { match: { value: pong } }
      - get: { url: /token }
      - think: 1
      - function: fn
      - loop:
          - emit: [n, "{{ $loopCount }}"]
          - post: { url: /seen }
        count: 2
`,
      '  timeout: 3\n  socketio:\n    transports: [websocket]\n',
      '    socketio: { path: /io }\n',
    ),
  );
  const [flow] = m.flows;
  expect(flow.engine).toBe('socketio');
  expect(flow.socketio).toEqual({ path: '/io' });
  expect(flow.steps.map((s) => Object.keys(s)[0])).toEqual([
    'sio',
    'sio',
    'sio',
    'request',
    'think',
    'function',
    'loop',
  ]);
  expect(flow.steps[0].sio).toEqual({
    namespace: '',
    emit: { channel: 'echo', data: 'hello' },
    response: null,
    acknowledge: null,
  });
  expect(flow.steps[1].sio.response).toEqual({
    channel: 'echoed',
    concat: null,
    data: { a: 1 },
    capture: { json: '$.0.a', as: 'a' },
    match: null,
  });
  expect(flow.steps[2].sio).toMatchObject({
    namespace: '/chat',
    emit: ['say', 'hi'],
    acknowledge: { match: { value: 'pong' } },
  });
  expect(flow.steps[6].loop.steps.map((s) => Object.keys(s)[0])).toEqual(['sio', 'request']);
  expect(m.socketio).toEqual({ options: { transports: ['websocket'] }, timeoutS: 3 });
  expect(m.features).toEqual(expect.arrayContaining(['socketio']));
  expect(m.foreign).toEqual([]);
  expect(m.unknown).toEqual([]);
});

test("refused with the line as Artillery's check refuses it: a list with a number, a mapping with no channel, a response with no channel", () => {
  expect(refusal(script('      - emit: [say, 2]\n'))).toMatchObject({ code: 'LAB_ERR_SCENARIO_FILE' });
  expect(refusal(script('      - emit: [say, 2]\n')).message).toMatch(/flow\[0\]\.emit\[1\].*a text/);
  expect(refusal(script('      - emit: { data: x }\n')).message).toMatch(/flow\[0\]\.emit.*a mapping with channel/);
  expect(refusal(script('      - emit: { channel: a }\n        response: { data: x }\n')).message).toMatch(
    /flow\[0\]\.response.*the channel/,
  );
  // A field neither engine knows is unknown, as elsewhere; an emit in an HTTP flow is Artillery's.
  expect(readScript(script('      - emit: { channel: a }\n        wait: 1\n')).unknown.map((u) => u.where)).toEqual([
    'scenarios[0].flow[0].wait',
  ]);
  const http = readScript(script('      - emit: { channel: a }\n', '', '', 'http'));
  expect(http.foreign.map((f) => f.feature)).toEqual([
    'Socket.IO emit steps in an HTTP flow (a scenario without engine: socketio)',
  ]);
});

test("config's socketio options rendered when read: a name of no variable then is sent as Artillery's client sends it; scenario hooks are said not to run", () => {
  const m = readScript(
    script(
      '      - emit: { channel: a }\n',
      '  socketio:\n    query: { who: "{{ who }}", env: "{{ $env.SIO_TEST }}" }\n',
      '    beforeRequest: hook\n',
    ),
  );
  expect(m.socketio.options.query.who).toBe('undefined');
  expect(m.notes.map((n) => n.note).join('\n')).toMatch(
    /beforeRequest: Artillery's socketio engine does not run a scenario's hooks/,
  );
});
