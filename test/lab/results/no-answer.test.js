'use strict';

const { noAnswer } = require('../../../lab/results/no-answer');

const run = (over) => ({ status: 'completed', requestsSent: 10, requestsCompleted: 10, codes: { 200: 10 }, errors: {}, ...over });

describe('a run with no answer from the service is a failed run', () => {
  test('answers from the service: the run stays completed', () => {
    const s = run({ codes: { 200: 4, 502: 6 } });
    noAnswer(s);
    expect(s.status).toBe('completed');
  });

  test('not one answer: failed, the commonest error named', () => {
    const s = run({ requestsCompleted: 0, codes: {}, errors: { ECONNREFUSED: 7, ETIMEDOUT: 3 } });
    noAnswer(s);
    expect(s.status).toBe('failed (no request was answered: ECONNREFUSED 7)');
  });

  test("only the entry's gateway errors (502, 504): failed, the entry said to reach no replica", () => {
    const s = run({ codes: { 502: 8, 504: 2 } });
    noAnswer(s);
    expect(s.status).toBe(
      'failed (no request was answered: HTTP 502 8, HTTP 504 2 from the entry, which reached no replica)',
    );
  });

  test("a service's own 503s and 500s are answers: the run completed (its failures counted elsewhere)", () => {
    const s = run({ codes: { 500: 5, 503: 5 } });
    noAnswer(s);
    expect(s.status).toBe('completed');
  });

  test('a run already failed, or one that sent nothing, is left as it is', () => {
    const a = run({ status: 'failed (generator)', requestsCompleted: 0, codes: {} });
    noAnswer(a);
    expect(a.status).toBe('failed (generator)');
    const b = run({ requestsSent: 0, requestsCompleted: 0, codes: {} });
    noAnswer(b);
    expect(b.status).toBe('completed');
  });

  test("no HTTP request of the lab's: a browser's pages are its answers; virtual users that all failed fail the run", () => {
    const browser = (codes) => ({ pages: 1, codes, httpRequests: 1, vitals: {} });
    const ok = run({ requestsSent: 0, requestsCompleted: 0, codes: {}, browser: browser({ 200: 3 }) });
    noAnswer(ok);
    expect(ok.status).toBe('completed');
    const gw = run({ requestsSent: 0, requestsCompleted: 0, codes: {}, browser: browser({ 502: 2 }) });
    noAnswer(gw);
    expect(gw.status).toBe('failed (no request was answered: no page loaded: HTTP 502 2)');
    const none = run({
      requestsSent: 0,
      requestsCompleted: 0,
      codes: {},
      scenariosLaunched: 2,
      scenariosCompleted: 0,
      errors: { 'page.goto: net::ERR_CONNECTION_REFUSED': 2 },
    });
    noAnswer(none);
    expect(none.status).toBe(
      'failed (no request was answered: no virtual user completed: page.goto: net::ERR_CONNECTION_REFUSED 2)',
    );
  });
});
