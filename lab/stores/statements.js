'use strict';

const net = require('node:net');

// What the data stores spent their time on over a window (--profile), the database's heaviest
// statements and the cache's commands: reset at the window's start, read at its end.
//   postgres  pg_stat_statements (Debian's postgresql ships it; the deployment preloads it when
//             it is profiled: lab/stores/postgres.js), the app database's statements by their
//             total execution time, normalized ($1 for each constant), the lab's own readings
//             (pg_stat_*) left out
//   redis     INFO commandstats (calls, microseconds, per call) and SLOWLOG GET
// Each read returns plain data; a store that cannot say (no extension) says why.
const TOP = 10;

const PG_ROWS = `SELECT s.query, s.calls::float8 AS calls, s.total_exec_time AS total_ms, s.mean_exec_time AS mean_ms,
  s.rows::float8 AS rows
  FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
  WHERE d.datname = $1 AND s.query !~* 'pg_stat_|pg_locks|pg_database|pg_backend_pid'
  ORDER BY s.total_exec_time DESC`;

function pgClient({ host, port }) {
  const { Client } = require('pg');
  const { USER, PASSWORD, DATABASE } = require('./postgres');
  return { client: new Client({ host, port, user: USER, password: PASSWORD, database: DATABASE }), DATABASE };
}

const postgres = {
  async reset(addr) {
    const { client } = pgClient(addr);
    try {
      await client.connect();
      await client.query('SELECT pg_stat_statements_reset()');
      return { ok: true };
    } catch (err) {
      return { error: noExtension(err) };
    } finally {
      client.end().catch(() => {});
    }
  },
  async read(addr) {
    const { client, DATABASE } = pgClient(addr);
    try {
      await client.connect();
      const rows = (await client.query(PG_ROWS, [DATABASE])).rows;
      const total = rows.reduce((a, r) => a + r.total_ms, 0);
      return {
        totalMs: round(total),
        statements: rows.slice(0, TOP).map((r) => ({
          query: r.query.replace(/\s+/g, ' ').trim().slice(0, 2000),
          calls: r.calls,
          totalMs: round(r.total_ms),
          meanMs: round(r.mean_ms, 3),
          rows: r.rows,
          share: total > 0 ? round(r.total_ms / total, 3) : 0,
        })),
      };
    } catch (err) {
      return { error: noExtension(err) };
    } finally {
      client.end().catch(() => {});
    }
  },
};

const noExtension = (err) =>
  /pg_stat_statements/.test(err.message)
    ? `pg_stat_statements is not loaded (${err.message.split('\n')[0]}): the deployment is preloaded with it when deployed with --profile`
    : err.message;

const redis = {
  async reset({ host, port }) {
    try {
      await resp(host, port, ['CONFIG', 'RESETSTAT']);
      await resp(host, port, ['SLOWLOG', 'RESET']);
      return { ok: true };
    } catch (err) {
      return { error: err.message };
    }
  },
  async read({ host, port }) {
    try {
      const info = String(await resp(host, port, ['INFO', 'commandstats']));
      const commands = [];
      for (const line of info.split('\r\n')) {
        const m = /^cmdstat_([^:]+):(.*)$/.exec(line);
        if (!m) continue;
        const f = Object.fromEntries(m[2].split(',').map((kv) => kv.split('=')));
        // (The lab's own reading and resets are left out.)
        if (['info', 'config|resetstat', 'slowlog|reset', 'slowlog|get', 'config', 'slowlog'].includes(m[1])) continue;
        commands.push({
          command: m[1],
          calls: Number(f.calls),
          totalMs: Number(f.usec) / 1000,
          usecPerCall: Number(f.usec_per_call),
        });
      }
      const total = commands.reduce((a, c) => a + c.totalMs, 0);
      const slow = await resp(host, port, ['SLOWLOG', 'GET', String(TOP)]);
      return {
        totalMs: round(total),
        commands: commands
          .sort((a, b) => b.totalMs - a.totalMs)
          .slice(0, TOP)
          .map((c) => ({ ...c, totalMs: round(c.totalMs), share: total > 0 ? round(c.totalMs / total, 3) : 0 })),
        slowlog: (Array.isArray(slow) ? slow : []).map((e) => ({
          at: Number(e[1]) * 1000,
          usec: Number(e[2]),
          command: (Array.isArray(e[3]) ? e[3] : []).map(String).join(' ').slice(0, 200),
        })),
      };
    } catch (err) {
      return { error: err.message };
    }
  },
};

const round = (v, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

// One command of Redis's protocol, its whole answer parsed (strings, integers, arrays).
// The time-out is judged after the input already in (setImmediate runs after the loop's poll
// for I/O): the window's end reads the stores while the replicas' CPU profiles arrive and are
// parsed, and a loop held that long once fired the time-out ahead of Redis's answer, waiting.
function resp(host, port, args, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (s.destroyed) return;
          s.destroy();
          reject(new Error(`Redis gave no answer in ${timeoutMs / 1000} s`));
        }),
      timeoutMs,
    );
    s.on('connect', () =>
      s.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`),
    );
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const r = parseResp(buf, 0);
      if (!r) return;
      clearTimeout(timer);
      s.destroy();
      if (r.value instanceof Error) reject(r.value);
      else resolve(r.value);
    });
    s.on('error', (err) => (clearTimeout(timer), reject(err)));
  });
}

// { value, end } of the reply at `at`, or null when it is not all there yet.
function parseResp(buf, at) {
  const nl = buf.indexOf('\r\n', at);
  if (nl < 0) return null;
  const type = String.fromCharCode(buf[at]);
  const head = buf.toString('utf8', at + 1, nl);
  if (type === '+') return { value: head, end: nl + 2 };
  if (type === '-') return { value: new Error(head), end: nl + 2 };
  if (type === ':') return { value: Number(head), end: nl + 2 };
  if (type === '$') {
    const n = Number(head);
    if (n < 0) return { value: null, end: nl + 2 };
    if (buf.length < nl + 2 + n + 2) return null;
    return { value: buf.toString('utf8', nl + 2, nl + 2 + n), end: nl + 2 + n + 2 };
  }
  if (type === '*') {
    const n = Number(head);
    const out = [];
    let pos = nl + 2;
    for (let i = 0; i < n; i++) {
      const r = parseResp(buf, pos);
      if (!r) return null;
      out.push(r.value);
      pos = r.end;
    }
    return { value: out, end: pos };
  }
  return { value: new Error(`unexpected reply ${type}`), end: buf.length };
}

const STATEMENTS = { postgres, redis };

module.exports = { STATEMENTS, parseResp, resp };
