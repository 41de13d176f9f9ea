'use strict';

const { browserOf, doneRecord } = require('../../../lab/generators/artillery-events');

// Artillery's aggregate report read into the lab's last record: the Playwright engine's pages
// and web vitals, a sketch's percentiles held within its min and max.
test("the Playwright engine's figures: pages and codes, each vital by URL, percentiles within min and max", () => {
  const agg = {
    counters: {
      'browser.page.codes.200': 3,
      'browser.page.codes.404': 1,
      'browser.http_requests': 9,
      'vusers.created': 2,
    },
    summaries: {
      'browser.page.FCP.http://x/': { count: 2, min: 124, max: 130, median: 131.4, p95: 131.4, p99: 131.4 },
      'browser.page.TTFB.http://x/': { count: 2, min: 177.6, max: 180, median: 175.9, p95: 180, p99: 180 },
      'vusers.session_length': { count: 2, min: 1, max: 2, median: 1, p95: 2, p99: 2 },
    },
  };
  const b = browserOf(agg);
  expect(b).toMatchObject({ pages: 4, codes: { 200: 3, 404: 1 }, httpRequests: 9 });
  expect(b.vitals.FCP['http://x/']).toEqual({ count: 2, min: 124, p50: 130, p95: 130, p99: 130, max: 130 });
  expect(b.vitals.TTFB['http://x/'].p50).toBe(177.6);
  expect(Object.keys(b.vitals)).toEqual(['FCP', 'TTFB']);
  expect(doneRecord({ aggregate: agg }, false).browser).toEqual(b);
  // An HTTP run has none.
  expect(browserOf({ counters: { 'http.requests': 3 }, summaries: {} })).toBeNull();
  expect(doneRecord({ aggregate: { counters: { 'http.requests': 3 }, summaries: {} } }, false).browser).toBeUndefined();
});

test("the ws and socketio engines' messages count as requests: sent, and done unless their wait failed", () => {
  const d = doneRecord(
    {
      aggregate: {
        counters: {
          'http.requests': 2,
          'http.responses': 2,
          'websocket.messages_sent': 5,
          'socketio.emit': 7,
          'errors.response timeout': 1,
          'errors.ECONNREFUSED': 3,
        },
        // (A response's emit is recorded twice by Artillery's engine: not a count of emits.)
        summaries: { 'socketio.response_time': { count: 11, min: 1, max: 2, median: 1 } },
      },
    },
    false,
  );
  expect(d.totals).toMatchObject({ launched: 14, completed: 13 });
  // Without such messages, Artillery's HTTP counters as they are.
  const http = doneRecord({ aggregate: { counters: { 'http.requests': 4, 'http.responses': 3 } } }, false);
  expect(http.totals).toMatchObject({ launched: 4, completed: 3 });
});
