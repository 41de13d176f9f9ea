'use strict';

const { parseCap, resolveCaps, describeCap } = require('../../../lab/topology/caps');
const { buildGraph } = require('../../../lab/topology/graph');
const { resolveDeployment } = require('../../../lab/topology/deployments');
const { codeOf } = require('../../helper');

const M = 2 ** 20;

describe('--cap NODE=CPU[,MEMORY]', () => {
  test('CPU in percent of one core, memory with K/M/G (binary, as Docker)', () => {
    expect(parseCap('edge=2%,25M')).toEqual({ node: 'edge', cpuPct: 2, memoryBytes: 25 * M });
    expect(parseCap('balancer=1.5')).toEqual({ node: 'balancer', cpuPct: 1.5, memoryBytes: null });
    expect(parseCap('replica-2=-,1G')).toEqual({ node: 'replica-2', cpuPct: null, memoryBytes: 2 ** 30 });
    expect(parseCap('bbox=150%,512MiB').memoryBytes).toBe(512 * M);
    expect(parseCap('bbox=10%,8192K').memoryBytes).toBe(8 * M);
    expect(describeCap(parseCap('edge=2%,25M'))).toBe('2% CPU, 25 MiB');
  });

  test.each(['edge', 'edge=', 'edge=-', 'edge=0%', 'edge=abc', 'edge=2%,25X', 'edge=2%,1M', '=2%', 'edge=9000%'])(
    '"%s" is a usage error',
    (text) => {
      expect(codeOf(() => parseCap(text))).toBe('LAB_ERR_USAGE');
    },
  );

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
    expect(caps['edge-1']).toEqual({ cpuPct: 2, memoryBytes: 25 * M });
    expect(caps['edge-2']).toEqual({ cpuPct: 5, memoryBytes: 25 * M });
    expect(caps['replica-2']).toEqual({ cpuPct: null, memoryBytes: 100 * M });
    expect(codeOf(() => resolveCaps([parseCap('edge=2%')], buildGraph(resolveDeployment('single'))))).toBe(
      'LAB_ERR_UNKNOWN_NAME',
    );
  });
});
