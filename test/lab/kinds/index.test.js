'use strict';

const {
  KINDS,
  BALANCERS,
  EDGES,
  EDGE_BY_FLAG,
  DAEMON_HOSTS,
  kindOf,
  reachesAllFromOneClient,
} = require('../../../lab/kinds');

test('the kinds as users see them: nginx first, none last, the others by name; edges by their short names', () => {
  const names = BALANCERS.map((k) => k.name);
  expect(names[0]).toBe('nginx');
  expect(names.at(-1)).toBe('none');
  const middle = names.slice(1, -1);
  expect(middle).toEqual([...middle].sort());
  expect(EDGES.every((k) => k.role === 'edge')).toBe(true);
  expect(EDGE_BY_FLAG.nginx).toBe(KINDS['nginx-edge']);
  expect(EDGE_BY_FLAG.varnish).toBe(KINDS.varnish);
});

test('every kind says what it is, where it runs and its layer', () => {
  for (const k of Object.values(KINDS)) {
    expect(typeof k.what).toBe('string');
    expect(k.runtimes.length).toBeGreaterThan(0);
    expect(['balancer', 'edge']).toContain(k.role);
  }
  expect(DAEMON_HOSTS.every((h) => h.daemon)).toBe(true);
});

test('an unknown kind is an error naming it', () => {
  expect(() => kindOf('nope')).toThrow(/unknown kind nope/);
});

test('one client reaches every replica through a balancer, unless none, or an L4 hash on its address', () => {
  expect(reachesAllFromOneClient({ kind: 'nginx', method: 'hash' })).toBe(true);
  expect(reachesAllFromOneClient({ kind: 'nginx-l4', method: 'round-robin' })).toBe(true);
  expect(reachesAllFromOneClient({ kind: 'nginx-l4', method: 'hash' })).toBe(false);
  expect(reachesAllFromOneClient({ kind: 'none' })).toBe(false);
});
