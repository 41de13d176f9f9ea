'use strict';

const cheerio = require('cheerio');
const deploymentSvg = require('../../../lab/report/deployment-svg');

const draw = (d) => cheerio.load(String(deploymentSvg(d)), { xmlMode: true });
const labels = ($) =>
  $('rect + text')
    .toArray()
    .map((t) => $(t).text());

test('replicas of workers behind the entry, calling both black boxes', () => {
  const $ = draw({ name: 'multi-replicated', replicas: 3, workers: 2, balancer: { kind: 'nginx' } });
  expect(labels($)).toEqual(expect.arrayContaining(['clients', 'nginx', 'bbox1', 'bbox2']));
  expect($('text').filter((_, t) => /^replica-\d$/.test($(t).text())).length).toBe(3);
  expect($('circle').length).toBe(6);
  expect($('svg > text').last().text()).toMatch(/multi-replicated: 3 replica\(s\) x 2 worker\(s\)/);
});

test("caching edges between the entry and the replicas; your service's stores in place of the boxes", () => {
  const $ = draw({
    name: 'cdn',
    replicas: 2,
    workers: 1,
    edges: 4,
    edgeKind: 'varnish',
    balancer: { kind: 'nginx' },
    app: { name: 'shop' },
    stores: ['postgres', 'redis'],
  });
  const l = labels($);
  expect(l.filter((x) => /^edge-\d \(/.test(x)).length).toBe(4);
  expect(l).toEqual(expect.arrayContaining(['postgres (PostgreSQL)', 'redis (Redis)']));
  expect(l).not.toContain('bbox1');
});

test("a file's counts are bounded, its labels escaped; an external target has no drawing", () => {
  const $ = draw({ name: 'x', label: '<script>', replicas: 1e9, workers: 'many', balancer: { kind: 'nope' } });
  expect($('text').filter((_, t) => /^replica-\d+$/.test($(t).text())).length).toBe(64);
  expect($('circle').length).toBe(64);
  expect(labels($)).toContain('nginx');
  expect(String(deploymentSvg({ label: '<script>', replicas: 1 }))).not.toMatch(/<script>/);
  expect(String(deploymentSvg(null))).toMatch(/External target: no deployment drawing/);
});
