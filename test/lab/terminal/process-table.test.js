'use strict';

const processTable = require('../../../lab/terminal/process-table');

test("deploy's table: a row per process, each node's port from the graph, restarts said", () => {
  const text = processTable({
    ports: { entry: 8080, replicas: [8081, 8082] },
    graph: {
      entry: 'balancer',
      nodes: [
        { name: 'balancer', port: 8080 },
        { name: 'replica-1', port: 8081 },
        { name: 'bbox', port: 9001, ports: [9001, 9002] },
      ],
    },
    live: [
      { name: 'balancer', pid: 10, status: 'online', children: 2, memoryMiB: 8 },
      { name: 'replica-1', pid: 11, status: 'online', restarted: true, children: 0, memoryMiB: 60.25 },
      { name: 'replica-2', pid: 12, status: 'online', children: 0, memoryMiB: 59 },
      { name: 'bbox', pid: 13, status: 'online', children: 0, memoryMiB: 40 },
    ],
  });
  const rows = text.split('\n').map((l) => l.split(/\s{2,}/));
  expect(rows[0]).toEqual(['process', 'pid', 'port', 'status', 'children', 'MiB (tree)']);
  expect(rows.slice(1)).toEqual([
    ['balancer', '10', '8080', 'online', '2', '8'],
    ['replica-1', '11', '8081', 'online (restarted)', '0', '60.3'],
    ['replica-2', '12', '8082', 'online', '0', '59'],
    ['bbox', '13', '9001,9002', 'online', '0', '40'],
  ]);
});

test('containers publish the entry only; a swarm of several nodes says where each task runs', () => {
  const text = processTable({
    ports: { entry: 8080 },
    graph: { entry: 'balancer', nodes: [{ name: 'balancer' }, { name: 'replica-1' }] },
    live: [
      { name: 'balancer', node: 'manager', status: 'running' },
      { name: 'replica-1', node: 'worker-1', status: 'running' },
    ],
  });
  const rows = text.split('\n').map((l) => l.split(/\s{2,}/));
  expect(rows[0]).toEqual(['process', 'node', 'pid', 'port', 'status', 'children', 'MiB (tree)']);
  expect(rows[1]).toEqual(['balancer', 'manager', '-', '8080', 'running', '-', '-']);
  expect(rows[2]).toEqual(['replica-1', 'worker-1', '-', '-', 'running', '-', '-']);
});
