'use strict';

const { refusalOf } = require('../../helper');
const { parseCap, resolveCaps, describeCap } = require('../../../lab/topology/caps');
const { buildGraph } = require('../../../lab/topology/graph');
const { resolveDeployment } = require('../../../lab/topology/deployments');
const { codeOf } = require('../../helper');

const M = 2 ** 20;

describe('--cap NODE=CPU[,MEMORY]', () => {
  test('CPU in percent of one core, memory with K/M/G (binary, as Docker)', () => {
    expect(parseCap('edge=2%,25M')).toEqual({ node: 'edge', cpuPct: 2, periodUs: null, memoryBytes: 25 * M });
    expect(parseCap('balancer=1.5%')).toEqual({ node: 'balancer', cpuPct: 1.5, periodUs: null, memoryBytes: null });
    // Millicores, as Kubernetes writes them: 250m is a quarter of a core.
    expect(parseCap('replica=250m')).toMatchObject({ node: 'replica', cpuPct: 25 });
    // A bare number has no unit: refused, both readings offered.
    expect(refusalOf(() => parseCap('replica=0.25'))).toMatchObject({
      code: 'LAB_ERR_INVALID_VALUE',
      message: expect.stringMatching(
        /CPU in "replica=0\.25" has no unit: give 0\.25% \(a percent of one core\) or 250m/,
      ),
    });
    expect(parseCap('replica-2=-,1G')).toEqual({
      node: 'replica-2',
      cpuPct: null,
      periodUs: null,
      memoryBytes: 2 ** 30,
    });
    expect(parseCap('bbox=150%,512MiB').memoryBytes).toBe(512 * M);
    expect(parseCap('bbox=10%,8192K').memoryBytes).toBe(8 * M);
    expect(describeCap(parseCap('edge=2%,25M'))).toBe('2% CPU, 25 MiB');
  });

  test('a CFS period after the share: ms, s or us, 1 ms to 1 s, its quota at least 1 ms', () => {
    expect(parseCap('edge=2%/500ms,25M')).toEqual({ node: 'edge', cpuPct: 2, periodUs: 500000, memoryBytes: 25 * M });
    expect(parseCap('balancer=1%/1s').periodUs).toBe(1e6);
    expect(parseCap('balancer=50%/2000us').periodUs).toBe(2000);
    expect(describeCap(parseCap('edge=2%/50ms,25M'))).toBe('2% CPU over 50 ms periods, 25 MiB');
    // 2% of 10 ms is 0.2 ms: the kernel refuses it, so the lab does first, naming the least period.
    let message = '';
    try {
      parseCap('edge=2%/10ms');
    } catch (err) {
      message = err.message;
    }
    expect(message).toMatch(/under the kernel's 1 ms minimum: give 2% a period of at least 50ms/);
  });

  test.each([
    'edge',
    'edge=',
    'edge=-',
    'edge=0%',
    'edge=abc',
    'edge=2%,25X',
    'edge=2%,1M',
    '=2%',
    'edge=9000%',
    'edge=2%/10ms',
    'edge=2%/2s',
    'edge=2%/0ms',
    'edge=2%/fast',
    'edge=-/100ms,25M',
  ])('"%s" is a usage error', (text) => {
    expect(codeOf(() => parseCap(text))).toBe('LAB_ERR_INVALID_VALUE');
  });

  test('roles reach every node of the role; a node name wins over its role; unknown names are refused', () => {
    const g = buildGraph(resolveDeployment('cdn'));
    const caps = resolveCaps(
      [parseCap('edge=2%,25M'), parseCap('edge-2=5%'), parseCap('backend=-,100M'), parseCap('balancer=1%')],
      g,
    );
    expect(Object.keys(caps).sort()).toEqual([
      'edge-1',
      'edge-2',
      'edge-3',
      'edge-4',
      'nginx',
      'replica-1',
      'replica-2',
    ]);
    expect(caps['edge-1']).toEqual({ cpuPct: 2, periodUs: null, memoryBytes: 25 * M });
    expect(caps['edge-2']).toEqual({ cpuPct: 5, periodUs: null, memoryBytes: 25 * M });
    expect(caps['replica-2']).toEqual({ cpuPct: null, periodUs: null, memoryBytes: 100 * M });
    // A period goes with its share: a node's own share without one drops the role's period.
    const p = resolveCaps([parseCap('edge=2%/500ms,25M'), parseCap('edge-2=5%')], g);
    expect(p['edge-1']).toEqual({ cpuPct: 2, periodUs: 500000, memoryBytes: 25 * M });
    expect(p['edge-2']).toEqual({ cpuPct: 5, periodUs: null, memoryBytes: 25 * M });
    expect(codeOf(() => resolveCaps([parseCap('edge=2%')], buildGraph(resolveDeployment('single'))))).toBe(
      'LAB_ERR_UNKNOWN_NAME',
    );
  });
});
