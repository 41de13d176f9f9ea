'use strict';

const cheerio = require('cheerio');
const { browserSection } = require('../../../lab/report/browser-html');
const { tableRows } = require('../../helper');

test('a browser run: its pages and codes, and a row per vital and page', () => {
  const $ = cheerio.load(
    String(
      browserSection({
        browser: {
          pages: 4,
          codes: { 200: 3, 404: 1 },
          httpRequests: 9,
          vitals: {
            FCP: { 'http://127.0.0.1/': { count: 2, p50: 120, p95: 280, p99: 285, max: 285 } },
            TTFB: { 'http://127.0.0.1/': { count: 2, p50: 5, p95: 9, p99: 9, max: 9 } },
          },
          note: "percentiles from Artillery's sketch",
        },
      }),
    ),
  );
  expect($('h2').text()).toBe('Browser (Playwright)');
  expect($('p').first().text().replace(/\s+/g, ' ')).toMatch(
    /4 page\(s\) loaded \(200: 3, 404: 1\); 9 request\(s\) made by the browser/,
  );
  const rows = tableRows($);
  expect(rows).toEqual([
    ['vital', 'page', 'count', 'p50', 'p95', 'p99', 'max'],
    ['FCP', 'http://127.0.0.1/', '2', '120', '280', '285', '285'],
    ['TTFB', 'http://127.0.0.1/', '2', '5', '9', '9', '9'],
  ]);
  expect($('.note').text()).toMatch(/percentiles from Artillery's sketch\./);
});

test('no browser: no section; no vitals: no table, and "no code" when no page answered', () => {
  expect(browserSection({})).toBe('');
  const $ = cheerio.load(
    String(browserSection({ browser: { pages: 0, codes: {}, httpRequests: 0, vitals: {}, note: 'n' } })),
  );
  expect($('table').length).toBe(0);
  expect($('p').first().text()).toMatch(/0 page\(s\) loaded \(no code\)/);
});
