'use strict';

const { runFindings } = require('../../../lab/analysis/run-findings');

// Each finding from a crafted summary: the figures it reads, nothing else.
const summary = (rows, extra = {}) => ({ nodes: { rows }, requestsSent: 300, requestsFailed: 0, ...extra });

test('a replica restarted during the run is named, with its exit codes and the requests that failed', () => {
  const [f] = runFindings(
    summary(
      [
        { node: 'nginx', restarts: null },
        { node: 'replica-1', restarts: 7, exitCodes: { 1: 7 } },
        { node: 'replica-2', restarts: 0 },
      ],
      { answersFailed: { count: 89 } },
    ),
  );
  expect(f.id).toBe('restarts');
  expect(f.text).toMatch(
    /^replica-1 exited and was restarted 7 time\(s\) \(exit code 1\) during the run; 89 of 300 requests failed/,
  );
  expect(f.text).not.toMatch(/replica-2/);
  expect(f.rule).toMatch(/pm2/);
});

test('a process a signal killed is said killed, and killed at its memory cap "out of memory", never "exit code 0"', () => {
  const [f] = runFindings(
    summary([
      { node: 'redis', restarts: 2, exitCodes: {}, kills: { SIGKILL: 2 }, oomKills: 2 },
      { node: 'replica-1', restarts: 3, exitCodes: { 1: 2 }, kills: { SIGTERM: 1 } },
    ]),
  );
  expect(f.text).toMatch(
    /^redis exited and was restarted 2 time\(s\) \(killed \(out of memory\)\); replica-1 exited and was restarted 3 time\(s\) \(exit code 1 x2, killed by SIGTERM x1\)/,
  );
  expect(f.text).not.toMatch(/exit code 0/);
  const [g] = runFindings(summary([{ node: 'redis', restarts: 1, exitCodes: {}, kills: { SIGKILL: 1 }, oomKills: 0 }]));
  expect(g.text).toMatch(/\(killed by SIGKILL\)/);
});

test('no restarts, or no node table: no finding', () => {
  expect(runFindings(summary([{ node: 'replica-1', restarts: 0 }]))).toEqual([]);
  expect(runFindings({})).toEqual([]);
});

test('a store busy while the replicas waited is named as the tier that set the limit', () => {
  const rows = [
    { node: 'nginx', cpuPctMean: 20 },
    { node: 'replica-1', cpuPctMean: 31 },
    { node: 'replica-2', cpuPctMean: 28 },
    { node: 'postgres', cpuPctMean: 96 },
    { node: 'redis', cpuPctMean: 12 },
  ];
  const [f] = runFindings(summary(rows));
  expect(f.id).toBe('store-limit');
  expect(f.tier).toBe('postgres');
  expect(f.text).toMatch(
    /^postgres at 96% of a core while the replicas sat at 31% at most: the database set the limit/,
  );
  // the replicas busy too: no store is blamed
  const busy = rows.map((r) => (r.node.startsWith('replica') ? { ...r, cpuPctMean: 90 } : r));
  expect(runFindings(summary(busy))).toEqual([]);
  // no store busy: none
  expect(runFindings(summary(rows.filter((r) => r.node !== 'postgres')))).toEqual([]);
});

// A cap is the store's whole core: a database held at its cap of half a core set the limit as
// one at a whole core does; replicas are judged against their own caps.
test('a store at its cap (under a core) while the replicas waited is the limit; a capped replica busy at its cap blames no store', () => {
  const rows = [
    { node: 'replica-1', cpuPctMean: 14, cpuCapPct: 25 },
    { node: 'replica-2', cpuPctMean: 12, cpuCapPct: 25 },
    { node: 'postgres', cpuPctMean: 45.2, cpuCapPct: 50 },
    { node: 'redis', cpuPctMean: 3 },
  ];
  const [f] = runFindings(summary(rows));
  expect(f).toMatchObject({ id: 'store-limit', tier: 'postgres' });
  expect(f.text).toMatch(
    /^postgres at 45\.2% of a core \(capped at 50%\) while the replicas sat at 14% at most: the database set the limit/,
  );
  expect(f.rule).toMatch(/of its cap, when capped under one/);
  // under 80% of its cap: not the limit
  const idle = rows.map((r) => (r.node === 'postgres' ? { ...r, cpuPctMean: 39 } : r));
  expect(runFindings(summary(idle))).toEqual([]);
  // a replica at 60% of its own cap of 25% (15% of a core): busy, no store blamed
  const busy = rows.map((r) => (r.node === 'replica-1' ? { ...r, cpuPctMean: 15 } : r));
  expect(runFindings(summary(busy))).toEqual([]);
  // a cap over one core is still one core's worth for a store
  const wide = rows.map((r) => (r.node === 'postgres' ? { ...r, cpuPctMean: 70, cpuCapPct: 200 } : r));
  expect(runFindings(summary(wide))).toEqual([]);
});

test("PostgreSQL's refused connections are counted against its limit and the processes sharing it", () => {
  const [f] = runFindings(
    summary([{ node: 'replica-1', cpuPctMean: 90 }], {
      stores: { postgres: { refusedConnections: 14 } },
      deployment: { replicas: 3, workers: 4, storeOptions: { maxConnections: 20 } },
    }),
  );
  expect(f.id).toBe('connection-limit');
  expect(f.text).toMatch(/refused 14 connection\(s\).*max_connections of 20, shared by 12 service process\(es\)/);
  expect(runFindings(summary([], { stores: { postgres: { refusedConnections: 0 } } }))).toEqual([]);
});

test("a store's heaviest statement, joined to the store-limit finding; another busy store's said on its own", () => {
  const rows = [
    { node: 'replica-1', cpuPctMean: 20 },
    { node: 'postgres', cpuPctMean: 97 },
    { node: 'redis', cpuPctMean: 35 },
  ];
  const stores = {
    postgres: {
      statements: [
        { query: 'UPDATE accounts SET balance = balance + $1 WHERE id = $2', calls: 12400, meanMs: 3.1, share: 0.71 },
      ],
    },
    redis: { commands: [{ command: 'incr', calls: 5000, usecPerCall: 2.1, share: 0.9 }] },
  };
  const found = runFindings(summary(rows, { stores }));
  expect(found.find((f) => f.id === 'store-limit').text).toBe(
    'postgres at 97% of a core while the replicas sat at 20% at most: the database set the limit; 71% of its time in `UPDATE accounts SET balance = balance + $1 WHERE id = $2` (12400 calls, 3.1 ms each)',
  );
  expect(found.find((f) => f.id === 'heaviest-statements').text).toBe(
    'redis: 90% of its time in INCR (5000 calls, 2.1 µs each)',
  );
});
