'use strict';

const { buildPhases } = require('../../artillery/phases');
const { pathOf } = require('../../artillery/scenarios');
const { catalogueModel } = require('../../lab/scenario/catalogue');
const { toArtillery } = require('../../lab/scenario/to-artillery');
const { requestOf } = require('../../lab/scenario/request');

// The catalogue's script for an endpoint and scenario, as the artillery generator runs it.
const buildScript = ({ endpoint, scenario, target, query = null }) =>
  toArtillery(catalogueModel({ endpoint, scenario, request: requestOf({ path: pathOf(endpoint, query) }) }), {
    target,
  });

describe('scenario table to Artillery phases', () => {
  test("load is the report's ramp: 0 to the peak over 120 s", () => {
    expect(buildPhases('ping', 'load')).toEqual([
      { name: 'ramp 0 to 1000/s', duration: 120, arrivalRate: 0, rampTo: 1000 },
    ]);
    expect(buildPhases('heavy', 'load')[0].rampTo).toBe(20);
    expect(buildPhases('bbox2', 'load')[0].rampTo).toBe(30);
  });

  test("spikes launch what the report's runs launched (bbox1 43,500; bbox2 255)", () => {
    const total = (phases) => phases.reduce((a, p) => a + p.duration * p.arrivalRate, 0);
    expect(total(buildPhases('bbox1', 'spikes'))).toBe(43500);
    expect(total(buildPhases('bbox2', 'spikes'))).toBe(255);
    expect(buildPhases('bbox1', 'spikes').map((p) => p.duration)).toEqual([45, 15, 45, 15, 45]);
  });

  test('endurance: 10 min by default, --duration overrides, heavy at 1/s', () => {
    expect(buildPhases('heavy', 'endurance')).toEqual([{ name: 'constant 1/s', duration: 600, arrivalRate: 1 }]);
    expect(buildPhases('bbox1', 'endurance', { durationS: 180 })[0]).toMatchObject({ duration: 180, arrivalRate: 200 });
  });

  test('--scale shortens durations (at least 1 s), --rate-scale changes rates; fractional rates become counts', () => {
    expect(buildPhases('ping', 'load', { scale: 0.1 })[0].duration).toBe(12);
    expect(buildPhases('bbox2', 'spikes', { scale: 0.01 }).every((p) => p.duration === 1)).toBe(true);
    const slow = buildPhases('bbox2', 'endurance', { rateScale: 0.25, durationS: 20 });
    expect(slow[0]).toEqual({ name: 'constant 2/s x0.25', duration: 20, arrivalCount: 10 });
  });

  test('scripts time requests out after 10 s, as in the report', () => {
    const s = buildScript({ endpoint: 'bbox2', scenario: 'load', target: 'http://127.0.0.1:8080' });
    expect(s.config.http.timeout).toBe(10);
    expect(s.scenarios[0].flow).toEqual([{ get: { url: '/bbox2' } }]);
  });

  test("a query's values changed: /work's rounds, the other parameters kept", () => {
    expect(pathOf('work')).toBe('/work?n=100');
    expect(pathOf('work', { n: 5 })).toBe('/work?n=5');
    expect(pathOf('ping', { n: 5 })).toBe('/ping?n=5');
    expect(requestOf({ path: pathOf('work', { n: 7 }) })).toMatchObject({
      method: 'GET',
      path: '/work?n=7',
      body: null,
    });
    const s = buildScript({ endpoint: 'work', scenario: 'load', target: 'http://127.0.0.1:8080', query: { n: 5 } });
    expect(s.scenarios[0].flow).toEqual([{ get: { url: '/work?n=5' } }]);
  });
});
