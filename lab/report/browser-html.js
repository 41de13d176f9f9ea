'use strict';

const { html, table } = require('./html');

// A browser run's section of its report (Artillery's Playwright engine, --generator
// artillery): the pages loaded and their codes, and each page's web vitals by URL, as
// percentiles of Artillery's own sketch (held within its min and max).
function browserSection(s) {
  const b = s.browser;
  if (!b) return '';
  const rows = [];
  for (const [vital, byUrl] of Object.entries(b.vitals)) {
    for (const [url, v] of Object.entries(byUrl)) rows.push([vital, url, v.count, v.p50, v.p95, v.p99, v.max]);
  }
  const codes = Object.entries(b.codes)
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  return html`<h2>Browser (Playwright)</h2>
    <p>
      ${b.pages} page(s) loaded (${codes || 'no code'}); ${b.httpRequests} request(s) made by the browser, pages and their
      files.
    </p>
    ${rows.length ? table(['vital', 'page', 'count', 'p50', 'p95', 'p99', 'max'], rows, 'vitals') : ''}
    <p class="note">
      Times in ms (TTFB: first byte; FCP, LCP: first and largest contentful paint); CLS, the layout shift, has no unit.
      ${b.note}.
    </p>`;
}

module.exports = { browserSection };
