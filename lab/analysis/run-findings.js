'use strict';

// What one run's figures say in words, each by a stated rule (its `rule`), as the studies'
// findings are (lab/analysis/findings.js): pure functions of summary.json, so a report prints
// the finding beside its rule and a test reaches each from a crafted summary.
//
// Each rule returns a finding { id, text, rule } or null; runFindings runs them all.

const { RUNTIME_RULES } = require('./runtime-findings');
const { elasticFindings } = require('../elastic/results');

// (The tier first, then the reason: the runtime's own rules, ./runtime-findings.js.)
const RULES = [restarted, connectionLimit, storeLimit, heaviestStatements, profileNotes, ...RUNTIME_RULES];

// What a node may use of one core: its cap (--cap, % of one core) when under a core, else
// one core. A store held at its cap is as much the limit as one at a whole core.
const allowance = (r) => Math.min(100, r.cpuCapPct ?? 100);

// Which tier set the limit, when a data store did: a store at STORE_BUSY of a core, or of its
// cap (Redis runs its commands on one thread; PostgreSQL a process per connection, each on one
// core at a time) while every replica stayed under REPLICAS_IDLE of its own (of its cap, when
// capped): the replicas waited on the store. (The replicas busy too: no store is named; the
// replicas' CPU says the rest.)
const STORE_BUSY = 80;
const REPLICAS_IDLE = 60;
function storeLimit(s) {
  const rows = s.nodes?.rows || [];
  const replicas = rows.filter((r) => /^replica-\d+$/.test(r.node));
  if (!replicas.length) return null;
  const busy = (r) => (r.cpuPctMean ?? 0) >= (STORE_BUSY / 100) * allowance(r);
  const stores = rows.filter((r) => ['postgres', 'redis'].includes(r.node) && busy(r));
  if (!stores.length || replicas.some((r) => (r.cpuPctMean ?? 0) >= (REPLICAS_IDLE / 100) * allowance(r))) return null;
  const busiest = stores.reduce((a, r) => (r.cpuPctMean / allowance(r) > a.cpuPctMean / allowance(a) ? r : a));
  const what = busiest.node === 'postgres' ? 'the database' : 'the cache';
  const heaviest = heaviestText(s, busiest.node);
  const capped = allowance(busiest) < 100 ? ` (capped at ${allowance(busiest)}%)` : '';
  const replicasMax = Math.round(Math.max(...replicas.map((r) => r.cpuPctMean ?? 0)));
  return {
    id: 'store-limit',
    tier: busiest.node,
    text: `${busiest.node} at ${busiest.cpuPctMean}% of a core${capped} while the replicas sat at ${replicasMax}% at most: ${what} set the limit${heaviest ? `; ${heaviest}` : ''}`,
    rule: `a store is the limit when its CPU averaged at least ${STORE_BUSY}% of a core (of its cap, when capped under one) over the run while no replica averaged ${REPLICAS_IDLE}% of its own (of its cap)${heaviest ? `; ${HEAVY_RULE}` : ''}`,
  };
}

// What a store spent its time on (--profile: lab/stores/statements.js), in words: "71% of
// its time in `UPDATE accounts ...` (12400 calls, 3.1 ms each)", or null.
const HEAVY_SHARE = 0.2;
const HEAVY_RULE = `its heaviest statement (PostgreSQL's pg_stat_statements) or command (Redis's commandstats) by total time over the profile's window, named at ${HEAVY_SHARE * 100}% of the store's time or more`;
function heaviestText(s, store) {
  const st = s.stores?.[store];
  const top = st?.statements?.[0] ?? st?.commands?.[0];
  if (!top || !(top.share >= HEAVY_SHARE)) return null;
  const share = `${Math.round(top.share * 100)}%`;
  if (top.query !== undefined) {
    const q = top.query.length > 120 ? `${top.query.slice(0, 117)}...` : top.query;
    return `${share} of its time in \`${q}\` (${top.calls} calls, ${top.meanMs} ms each)`;
  }
  return `${share} of its time in ${top.command.toUpperCase()} (${top.calls} calls, ${top.usecPerCall} µs each)`;
}

// The heaviest statement of a store that was not the limit, said too, when the store was busy
// enough for it to matter (the first thing to look at before it becomes the limit).
const HEAVY_CPU = 20;
function heaviestStatements(s) {
  const limit = storeLimit(s);
  const rows = s.nodes?.rows || [];
  const parts = ['postgres', 'redis']
    .filter((n) => n !== limit?.tier && (rows.find((r) => r.node === n)?.cpuPctMean ?? 0) >= HEAVY_CPU)
    .map((n) => {
      const t = heaviestText(s, n);
      return t ? `${n}: ${t}` : null;
    })
    .filter(Boolean);
  if (!parts.length) return null;
  return {
    id: 'heaviest-statements',
    text: parts.join('; '),
    rule: `${HEAVY_RULE}; for a store at ${HEAVY_CPU}% of a core or more that was not the limit`,
  };
}

// PostgreSQL refusing connections at its max_connections: the classic failure of replicas,
// each with its own pool of connections (a pool of 10 in each of 3 replicas of 4 workers asks
// for 120 of 100).
function connectionLimit(s) {
  const refused = s.stores?.postgres?.refusedConnections;
  if (!refused) return null;
  const max = s.deployment?.storeOptions?.maxConnections ?? 100;
  const procs = (s.deployment?.replicas ?? 1) * (s.deployment?.workers ?? 1);
  return {
    id: 'connection-limit',
    tier: 'postgres',
    text: `PostgreSQL refused ${refused} connection(s): too many clients for its max_connections of ${max}, shared by ${procs} service process(es), each with its own pool: the connection limit set it (raise --db-max-connections, or make each pool smaller)`,
    rule: 'PostgreSQL\'s own log ("sorry, too many clients already") over the run\'s window',
  };
}

// A process the supervisor restarted during the run: every answer it could not give while
// it was down (a 502 from the balancer, a reset) belongs to it, not to the load.
function restarted(s) {
  const rows = (s.nodes?.rows || []).filter((r) => r.restarts > 0);
  if (!rows.length) return null;
  const each = rows.map((r) => {
    const times = (n) => (n === r.restarts ? '' : ` x${n}`);
    const codes = [
      ...Object.entries(r.exitCodes || {}).map(([c, n]) => `exit code ${c}${times(n)}`),
      // Killed by a signal: SIGKILL where the kernel's OOM killer acted at the node's memory
      // cap is said as such.
      ...Object.entries(r.kills || {}).map(
        ([sig, n]) =>
          `${sig === 'SIGKILL' && r.oomKills > 0 ? 'killed (out of memory)' : `killed by ${sig}`}${times(n)}`,
      ),
    ].join(', ');
    return `${r.node} exited and was restarted ${r.restarts} time(s)${codes ? ` (${codes})` : ''}`;
  });
  const failed = (s.answersFailed?.count || 0) + (s.requestsFailed || 0);
  const share = failed && s.requestsSent ? `; ${failed} of ${s.requestsSent} requests failed in the run` : '';
  return {
    id: 'restarts',
    text: `${each.join('; ')} during the run${share}: a service that crashes under load, not the deployment, may be what failed them (its logs: logs/ of the state folder)`,
    rule: "a process is reported when its supervisor (pm2) restarted it between the run's start and end, counted from the supervisor's own log",
  };
}

// A profile asked for (--profile) that could not be taken whole, said among the findings as
// well as in the profile's own lines: no window, no process answered, statements read early.
function profileNotes(s) {
  const notes = [...(s.profile?.notes || [])];
  const nodes = Object.keys(s.profile?.nodes || {});
  if (s.profile && !nodes.length && !notes.length)
    notes.push(
      'no process of the service sent a profile (the profiler runs in Node processes, through the runtime probe)',
    );
  if (!notes.length) return null;
  return {
    id: 'profile',
    text: `the profile (--profile): ${notes.join('; ')}`,
    rule: 'said whenever the profile asked for was not taken whole (its window, its processes, its statements)',
  };
}

// (Replicas that changed under load say what it did, a finding per spike: lab/elastic/results.js.)
function runFindings(summary) {
  return [...RULES.map((rule) => rule(summary)).filter(Boolean), ...elasticFindings(summary)];
}

module.exports = { runFindings, RULES };
