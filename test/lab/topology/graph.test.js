'use strict';

const { buildGraph, nodeOf, capNames } = require('../../../lab/topology/graph');
const { resolveDeployment, PRESETS } = require('../../../lab/topology/deployments');
const { planPorts } = require('../../../lab/topology/ports');

const graphOf = (name, overrides = {}) => {
  const d = resolveDeployment(name, overrides);
  return buildGraph(d, planPorts(9000, d.replicas, d.edges));
};

describe('a deployment as a graph', () => {
  test.each(PRESETS.filter((p) => !p.edges).map((p) => [p.name, p.replicas, p.workers]))(
    '%s: nginx in front of %i replica(s) of %i worker(s), the black boxes behind',
    (name, replicas, workers) => {
      const g = graphOf(name);
      expect(g.entry).toBe('nginx');
      expect(g.front).toEqual(['nginx']);
      const reps = g.nodes.filter((n) => n.kind === 'service');
      expect(reps.map((n) => n.name)).toEqual(Array.from({ length: replicas }, (_, i) => `replica-${i + 1}`));
      expect(reps.every((n) => n.workers === workers && n.upstreams[0] === 'bbox')).toBe(true);
      expect(nodeOf(g, 'nginx').upstreams).toEqual(reps.map((n) => n.name));
      expect(nodeOf(g, 'nginx').port).toBe(9000);
    },
  );

  test('cdn: the balancer hashes over 4 caching edges, each in front of the 2 backends', () => {
    const g = graphOf('cdn');
    const edges = g.nodes.filter((n) => n.kind === 'nginx-edge');
    expect(edges.map((n) => [n.name, n.port])).toEqual([
      ['edge-1', 9050],
      ['edge-2', 9051],
      ['edge-3', 9052],
      ['edge-4', 9053],
    ]);
    expect(edges.every((e) => e.upstreams.join() === 'replica-1,replica-2')).toBe(true);
    expect(nodeOf(g, 'nginx').upstreams).toEqual(edges.map((e) => e.name));
    expect(resolveDeployment('cdn').balancer.method).toBe('hash');
    expect(nodeOf(g, 'replica-1').roles).toEqual(['replica', 'backend']);
    expect(capNames(g)).toEqual(expect.arrayContaining(['balancer', 'edge', 'replica', 'backend', 'bbox', 'edge-3']));
  });

  test('other kinds: the node balancer is named balancer; none sends clients to the front tier', () => {
    expect(graphOf('replicated', { balancer: 'node' }).entry).toBe('balancer');
    const none = graphOf('replicated', { balancer: 'none' });
    expect(none.entry).toBe(null);
    expect(none.front).toEqual(['replica-1', 'replica-2', 'replica-3']);
    expect(graphOf('cdn', { balancer: 'none' }).front).toEqual(['edge-1', 'edge-2', 'edge-3', 'edge-4']);
    // A method the kind cannot do falls back to the kind's own.
    expect(resolveDeployment('cdn', { balancer: 'node' }).balancer.method).toBe('round-robin');
    expect(graphOf('single', { edges: 2 }).nodes.filter((n) => n.kind === 'nginx-edge')).toHaveLength(2);
  });

  test('without ports (containers), the same nodes with none', () => {
    const g = buildGraph(resolveDeployment('cdn'));
    expect(g.nodes.map((n) => n.name)).toEqual(graphOf('cdn').nodes.map((n) => n.name));
    expect(g.nodes.every((n) => n.port === null)).toBe(true);
  });
});
