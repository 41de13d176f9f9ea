'use strict';

const cheerio = require('cheerio');
const page = require('../../../lab/report/page');
const { html } = require('../../../lab/report/html');

const machine = { hostname: 'vm', cpuModel: 'EPYC', cores: 2, memoryGiB: 23.5, node: 'v20.20.2', nginx: '1.22.1' };

test('every page: the lab named as its writer, its title escaped, the machine in its footer, nothing fetched', () => {
  const text = page('a <title>', html`<p>body</p>`, machine);
  expect(page.isOurPage(text)).toBe(true);
  const $ = cheerio.load(text);
  expect($('title').text()).toBe('a <title>');
  expect($('footer').text().replace(/\s+/g, ' ').trim()).toBe(
    'Measured on vm: EPYC, 2 cores, 23.5 GiB, Node v20.20.2, nginx 1.22.1.',
  );
  expect($('script[src], link[href], img[src]').length).toBe(0);
});

test("a page's scripts only when it needs them: the chart library for charts, none otherwise", () => {
  expect(cheerio.load(page('t', html`<p>x</p>`, null))('script').length).toBe(0);
  expect(
    cheerio.load(page('t', html`<div class="chart" data-chart="{}"></div>`, null))('script').length,
  ).toBeGreaterThan(0);
});

test("a file the lab did not write is not the lab's page (it is not overwritten)", () => {
  expect(page.isOurPage('<!doctype html><html><head><title>mine</title></head></html>')).toBe(false);
  // the mark is looked for at the top only
  expect(page.isOurPage(`${' '.repeat(4096)}<meta name="generator" content="node-deploy-lab" />`)).toBe(false);
});
