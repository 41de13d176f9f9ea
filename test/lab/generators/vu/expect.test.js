'use strict';

const { judge, expectationsOf } = require('../../../../lab/generators/vu/expect');

const json = (obj, status = 200, headers = {}) => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  text: JSON.stringify(obj),
});
const ctx = { vars: { code: 201, field: 'id' } };
const oks = (expect, res, o) => judge(expect, res, ctx, o).map((r) => r.ok);

test('the checks as the plugin lists them: a list, or a mapping of one each', () => {
  expect(expectationsOf([{ statusCode: 200 }, { contentType: 'json' }])).toEqual([
    { statusCode: 200 },
    { contentType: 'json' },
  ]);
  expect(expectationsOf({ statusCode: 200, hasProperty: 'id' })).toEqual([{ statusCode: 200 }, { hasProperty: 'id' }]);
  expect(expectationsOf(undefined)).toEqual([]);
});

test('status codes: one, one of several, templated, and not', () => {
  const res = json({}, 201);
  expect(
    oks([{ statusCode: 201 }, { statusCode: [200, 201] }, { statusCode: '{{ code }}' }, { statusCode: 200 }], res),
  ).toEqual([true, true, true, false]);
  expect(oks([{ notStatusCode: 500 }, { notStatusCode: [201, 202] }], res)).toEqual([true, false]);
});

test("a JSON answer's type and properties; a text answer has none", () => {
  const res = json({ id: 7, user: { name: 'a' } });
  expect(
    oks(
      [{ contentType: 'json' }, { hasProperty: '{{ field }}' }, { hasProperty: 'user.name' }, { notHasProperty: 'x' }],
      res,
    ),
  ).toEqual([true, true, true, true]);
  const text = { status: 200, headers: { 'content-type': 'text/plain' }, text: 'id' };
  expect(oks([{ contentType: 'json' }, { hasProperty: 'id' }, { contentType: 'text/plain' }], text)).toEqual([
    false,
    false,
    true,
  ]);
  // JSON said, but not JSON: no body to look into
  const broken = { status: 200, headers: { 'content-type': 'application/json' }, text: '{"id":' };
  expect(oks([{ hasProperty: 'id' }, { contentType: 'json' }], broken)).toEqual([false, false]);
});

test('headers, equals, a regular expression (a bad one fails, not throws), jmespath, the CDN verdict', () => {
  const res = {
    status: 200,
    headers: { 'content-type': 'text/plain', 'x-cache': 'HIT from edge-1', etag: 'v1' },
    text: 'pong 42',
  };
  expect(
    oks(
      [
        { hasHeader: 'etag' },
        { hasHeader: 'age' },
        { headerEquals: ['etag', 'v1'] },
        { equals: ['201', '{{ code }}'] },
        { equals: ['1', '2'] },
        { matchesRegexp: '^pong \\d+$' },
        { matchesRegexp: '(' },
        { cdnHit: true },
        { cdnHit: false },
      ],
      res,
    ),
  ).toEqual([true, false, true, true, false, true, false, true, false]);
  expect(oks([{ jmespath: 'items[0].id' }, { jmespath: 'missing' }], json({ items: [{ id: 1 }] }))).toEqual([
    true,
    false,
  ]);
});

test('an unknown check is left out; expectDefault200 checks a request that asks nothing', () => {
  expect(judge([{ noSuchCheck: 1 }], json({}), ctx)).toEqual([]);
  expect(judge(undefined, json({}, 404), ctx, { expectDefault200: true })).toEqual([{ ok: false, type: 'statusCode' }]);
  expect(judge(undefined, json({}, 404), ctx)).toEqual([]);
});
