'use strict';

const { ownPlan, OWN_FLAGS, OWN_SUPPORTS } = require('../../../lab/generators/own-plan');

const model = { name: 'buy', timeoutS: 10, flows: [{ steps: [] }] };

test("the own engines' plan: the model as plain data, the time-out in ms, one request in flight by default", () => {
  const ctx = { target: 'http://127.0.0.1:8080', values: { keepalive: true } };
  const plan = ownPlan(model, ctx);
  expect(plan).toMatchObject({
    target: ctx.target,
    targets: null,
    timeoutMs: 10000,
    keepalive: true,
    pipelining: 1,
    tls: null,
    name: 'buy',
  });
  expect(plan.model).toEqual(model);
  expect(plan.model).not.toBe(model);
});

test('an https:// target: its CA, resumption on unless --tls-resume off, HTTP/2 and its streams', () => {
  const tls = { ca: '/s/ca.pem', insecure: false, http2: true };
  expect(ownPlan(model, { target: 'https://h', values: {}, tls }).tls).toEqual({ ...tls, resume: true, streams: null });
  expect(ownPlan(model, { target: 'https://h', values: { 'tls-resume': 'off', streams: 8 }, tls }).tls).toMatchObject({
    resume: false,
    streams: 8,
  });
});

test('their flags each with a help line; --pipelining only with --keepalive; load nodes and several targets', () => {
  for (const spec of Object.values(OWN_FLAGS)) expect(spec.help).toBeTruthy();
  expect(OWN_FLAGS.pipelining.needs.flags).toEqual(['keepalive']);
  expect(OWN_SUPPORTS).toEqual(expect.arrayContaining(['targets', 'load-nodes']));
});
