'use strict';

const { parseMessage, errorMessage, rateLimiter, ERRORS } = require('../../../service/signal/protocol');

describe('signaling protocol', () => {
  test.each([
    ['{"type":"join","room":"r-1"}', true],
    ['{"type":"offer","to":"a.1.2","data":{"sdp":"x"}}', true],
    ['{"type":"candidate","to":"p","data":null}', true],
    ['not json', 'BAD_JSON'],
    ['[1,2]', 'BAD_JSON'],
    ['null', 'BAD_JSON'],
    ['{"type":"dance"}', 'UNKNOWN_TYPE'],
    ['{"type":"join"}', 'BAD_ROOM'],
    ['{"type":"join","room":"a b"}', 'BAD_ROOM'],
    [`{"type":"join","room":"${'x'.repeat(65)}"}`, 'BAD_ROOM'],
    ['{"type":"answer","data":1}', 'BAD_PEER'],
    ['{"type":"answer","to":5}', 'BAD_PEER'],
  ])('%s -> %s', (text, expected) => {
    const r = parseMessage(text);
    if (expected === true) expect(r.ok).toBe(true);
    else expect(r).toEqual({ ok: false, code: expected });
  });

  test('every error code has its message', () => {
    for (const code of Object.keys(ERRORS))
      expect(errorMessage(code)).toEqual({ type: 'error', code, message: ERRORS[code] });
  });

  test('rate: within the budget ok, above it dropped, far above it closed; a new second starts over', () => {
    let t = 1000;
    const allow = rateLimiter(3, 2, () => t);
    expect([allow(), allow(), allow(), allow(), allow(), allow(), allow()]).toEqual([
      'ok',
      'ok',
      'ok',
      'drop',
      'drop',
      'drop',
      'close',
    ]);
    t = 2000;
    expect(allow()).toBe('ok');
  });
});
