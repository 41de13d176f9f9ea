'use strict';

const { zipf, pathPicker, encodeObjects, decodeObjects } = require('../../artillery/objects');
const { pathOf } = require('../../artillery/scenarios');
const { catalogueModel } = require('../../lab/scenario/catalogue');
const { toArtillery } = require('../../lab/scenario/to-artillery');
const { requestOf } = require('../../lab/scenario/request');

const buildScript = ({ endpoint, scenario, target }) =>
  toArtillery(catalogueModel({ endpoint, scenario, request: requestOf({ path: pathOf(endpoint) }) }), { target });

// A seeded generator (mulberry32): the draws are the same on every run.
function seeded(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('objects with a Zipf popularity', () => {
  test('rank k is drawn about 1/k as often as rank 1, always within 1..count', () => {
    const draw = zipf(1000, 1, seeded(7));
    const counts = new Map();
    const n = 200000;
    for (let i = 0; i < n; i++) {
      const k = draw();
      expect(k >= 1 && k <= 1000).toBe(true);
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    // H(1000) = 7.485: rank 1 gets 1/7.485 = 13.4% of the draws, rank 10 a tenth of that.
    expect(counts.get(1) / n).toBeCloseTo(0.1336, 2);
    expect(counts.get(10) / counts.get(1)).toBeCloseTo(0.1, 1);
    // Skewed: the top 10% of the objects take most of the requests.
    let top = 0;
    for (let k = 1; k <= 100; k++) top += counts.get(k) || 0;
    expect(top / n).toBeGreaterThan(0.65);
  });

  test('paths: constant without objects, one object per request with them; the spec round-trips', () => {
    expect(pathPicker('/ping', null)()).toBe('/ping');
    expect(pathPicker('/asset/', { count: 5, exponent: 1, bytes: 100 })()).toMatch(/^\/asset\/obj-[1-5]\?bytes=100$/);
    const o = { count: 1000, exponent: 1.2, bytes: 10240 };
    expect(decodeObjects(encodeObjects(o))).toEqual(o);
  });

  test("the asset endpoint's plain Artillery script draws its object through the processor", () => {
    const s = buildScript({ endpoint: 'asset', scenario: 'load', target: 'http://127.0.0.1:1' });
    expect(s.config.processor).toMatch(/lab-processor\.js$/);
    expect(s.config.variables.labObjects).toBe('1000:1:10240');
    expect(s.scenarios[0].flow).toEqual([{ function: 'labPickObject' }, { get: { url: '/asset/{{ labObject }}' } }]);
    const context = { vars: { labObjects: '10:1:64' } };
    require('../../artillery/plugins/lab-processor').labPickObject(context, null, () => {});
    expect(context.vars.labObject).toMatch(/^obj-\d+\?bytes=64$/);
  });
});
