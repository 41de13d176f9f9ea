'use strict';

const { parseExpect, isExpected, failedAnswers, DEFAULT } = require('../../../lab/results/expect-status');

test('by default an answer of 400 or more failed (as k6 counts http_req_failed)', () => {
  expect(parseExpect(undefined)).toBe(DEFAULT);
  expect([200, 302, 399, 400, 404, 503].map((c) => isExpected(DEFAULT, c))).toEqual([true, true, true, false, false, false]);
});

test('--expect-status: codes, classes and ranges', () => {
  const e = parseExpect('2xx, 404,500-502');
  expect(e.parts).toEqual([
    [200, 299],
    [404, 404],
    [500, 502],
  ]);
  expect([204, 301, 404, 501, 503].map((c) => isExpected(e, c))).toEqual([true, false, true, true, false]);
});

test('a code that is not a number is not judged here', () => {
  expect(isExpected(parseExpect('200'), 'ECONNREFUSED')).toBe(true);
});

test.each(['', 'abc', '99', '600', '2xx,x', '300-200', '6xx'])('--expect-status %p is refused, saying the form', (text) => {
  expect(() => parseExpect(text)).toThrow(expect.objectContaining({ code: 'LAB_ERR_USAGE' }));
  expect(() => parseExpect(text)).toThrow(/expected statuses or ranges, like 200,404/);
});

test('the failed answers among the codes counted', () => {
  expect(failedAnswers({ 200: 90, 404: 7, 503: 3, ETIMEDOUT: 2 }, parseExpect('200,404'))).toEqual({
    count: 3,
    codes: { 503: 3 },
  });
  expect(failedAnswers(undefined)).toEqual({ count: 0, codes: {} });
});
