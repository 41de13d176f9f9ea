'use strict';

const { appAccepts, gatewayHint, entryProbe, upstreamOf } = require('../../../lab/runtime/readiness');

describe('which answers say a node is up', () => {
  test("the lab's own service: 200 only", () => {
    const ok = appAccepts(null);
    expect([200, 204, 404, 502].map(ok)).toEqual([true, false, false, false]);
  });

  test("your service: any answer but the entry's gateway errors (502, 504)", () => {
    const ok = appAccepts({ name: 'shop' });
    expect([200, 404, 500, 503, 502, 504].map(ok)).toEqual([true, true, true, true, false, false]);
  });

  test('your service with --health: below 500', () => {
    const ok = appAccepts({ name: 'shop', health: '/up' });
    expect([200, 404, 500, 502].map(ok)).toEqual([true, true, false, false]);
  });
});

describe('the hint when the entry of your containers reaches no replica', () => {
  test('a 502 to the end names listening on every interface', () => {
    const hint = gatewayHint(new Error('HTTP 502'), { name: 'shop' });
    expect(hint).toMatch(/reached no replica/);
    expect(hint).toMatch(/listen\(PORT\), not listen\(PORT, '127\.0\.0\.1'\)/);
  });

  test("no hint for another error, or for the lab's own service", () => {
    expect(gatewayHint(new Error('ECONNREFUSED'), { name: 'shop' })).toBe('');
    expect(gatewayHint(new Error('HTTP 502'), null)).toBe('');
  });
});

describe('which replica answered, as the entry names it', () => {
  const answer = (upstream) => ({ headers: { 'x-lab-upstream': upstream } });

  test('the header of a retried request: the last replica it tried', () => {
    expect(upstreamOf(answer('10.0.1.5:3000, 10.0.1.6:3000'))).toBe('10.0.1.6:3000');
    expect(upstreamOf({ headers: { 'x-lab-backend': 'replica-2' } })).toBe('replica-2');
    expect(upstreamOf({ headers: {} })).toBeUndefined();
  });

  test('your service behind nginx is up only when every replica answered: a retried answer is not one more', () => {
    const deployment = { app: { name: 'shop' }, replicas: 3, balancer: { kind: 'nginx', method: 'round-robin' } };
    const { until } = entryProbe(deployment, { last: 12 });
    const a = '10.0.1.5:3000';
    const b = '10.0.1.6:3000';
    expect(until([answer(a), answer(b), answer(`${a}, ${b}`)])).toBe(false);
    expect(until([answer(a), answer(b), answer(`${a}, 10.0.1.7:3000`)])).toBe(true);
  });
});
