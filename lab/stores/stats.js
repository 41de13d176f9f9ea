'use strict';

const net = require('node:net');

// The stores' own figures over a run, read once a second (the first figures a user looks at
// when a database is the limit):
//   postgres  transactions a second, client connections (active, waiting on a lock, all),
//             locks not granted, rows read and written a second, the cache hit ratio, from
//             pg_stat_database and pg_stat_activity (the lab's own reading is one connection
//             and two statements a second, left out of the connections it counts)
//   redis     commands a second, connected clients, memory used, from INFO
// sampler(stores, addressOf) -> { start(), stop() -> { [store]: { samples, summary } } }.

const PG_TOTALS = `SELECT sum(xact_commit + xact_rollback)::float8 AS xacts,
  sum(tup_returned + tup_fetched)::float8 AS rows_read,
  sum(tup_inserted + tup_updated + tup_deleted)::float8 AS rows_written,
  sum(blks_hit)::float8 AS hit, sum(blks_read)::float8 AS read FROM pg_stat_database`;
const PG_NOW = `SELECT count(*) FILTER (WHERE state = 'active')::int AS active,
  count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting,
  count(*)::int AS connections,
  (SELECT count(*)::int FROM pg_locks WHERE NOT granted) AS lock_waits
  FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;

function postgresReader({ host, port }) {
  const { Client } = require('pg');
  const { USER, PASSWORD, DATABASE } = require('./postgres');
  const client = new Client({ host, port, user: USER, password: PASSWORD, database: DATABASE });
  let connected = null;
  let prev = null;
  return {
    async read(at) {
      connected ??= client.connect();
      await connected;
      const totals = (await client.query(PG_TOTALS)).rows[0];
      const now = (await client.query(PG_NOW)).rows[0];
      const sample = { at, ...now };
      if (prev) {
        const s = (at - prev.at) / 1000;
        const d = (k) => Math.max(0, (totals[k] - prev.totals[k]) / s);
        sample.tps = round1(d('xacts'));
        sample.rowsReadPerS = round1(d('rows_read'));
        sample.rowsWrittenPerS = round1(d('rows_written'));
        const hit = totals.hit - prev.totals.hit;
        const read = totals.read - prev.totals.read;
        sample.cacheHitRatio = hit + read > 0 ? Math.round((hit / (hit + read)) * 1000) / 1000 : null;
      }
      prev = { at, totals };
      return sample;
    },
    close: () => client.end().catch(() => {}),
  };
}

function redisReader({ host, port }) {
  let prev = null;
  return {
    async read(at) {
      const info = parseInfo(await command(host, port, 'INFO'));
      const sample = {
        at,
        clients: Number(info.connected_clients),
        memoryMiB: round1(Number(info.used_memory) / 2 ** 20),
      };
      const total = Number(info.total_commands_processed);
      // (The lab's own INFO each second is one command of them.)
      if (prev) sample.opsPerS = round1(Math.max(0, (total - prev.total - 1) / ((at - prev.at) / 1000)));
      prev = { at, total };
      return sample;
    },
    close: () => {},
  };
}

// One command, its whole bulk answer.
function command(host, port, cmd, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let got = '';
    const timer = setTimeout(() => (s.destroy(), reject(new Error('no answer'))), timeoutMs);
    s.on('connect', () => s.write(`${cmd}\r\n`));
    s.on('data', (d) => {
      got += d;
      const m = /^\$(\d+)\r\n/.exec(got);
      if (m && Buffer.byteLength(got) >= m[0].length + Number(m[1]) + 2) {
        clearTimeout(timer);
        s.destroy();
        resolve(got.slice(m[0].length, m[0].length + Number(m[1])));
      }
    });
    s.on('error', (err) => (clearTimeout(timer), reject(err)));
  });
}

const parseInfo = (text) =>
  Object.fromEntries(
    text
      .split('\r\n')
      .filter((l) => l && !l.startsWith('#') && l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );

const round1 = (v) => Math.round(v * 10) / 10;
const READERS = { postgres: postgresReader, redis: redisReader };

// A run's figures: each store sampled every intervalMs from start() to stop().
function storeSampler(stores, addressOf, { intervalMs = 1000 } = {}) {
  const readers = Object.fromEntries(stores.map((n) => [n, READERS[n](addressOf(n))]));
  const samples = Object.fromEntries(stores.map((n) => [n, []]));
  const errors = {};
  let timer = null;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    const at = Date.now();
    await Promise.all(
      Object.entries(readers).map(async ([n, r]) => {
        try {
          samples[n].push(await r.read(at));
        } catch (err) {
          errors[n] = err.message;
        }
      }),
    );
    busy = false;
  };
  return {
    start() {
      if (!stores.length) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      for (const r of Object.values(readers)) r.close();
      return Object.fromEntries(
        stores.map((n) => [
          n,
          { samples: samples[n], summary: summarize(n, samples[n]), ...(errors[n] ? { error: errors[n] } : {}) },
        ]),
      );
    },
  };
}

// A store's run in a few figures: means and peaks of its samples.
function summarize(name, samples) {
  const vals = (k) => samples.map((s) => s[k]).filter((v) => typeof v === 'number');
  const mean = (k) => (vals(k).length ? round1(vals(k).reduce((a, b) => a + b, 0) / vals(k).length) : null);
  const max = (k) => (vals(k).length ? Math.max(...vals(k)) : null);
  if (name === 'postgres') {
    return {
      tpsMean: mean('tps'),
      tpsMax: max('tps'),
      connectionsMax: max('connections'),
      activeMax: max('active'),
      waitingMax: max('waiting'),
      lockWaitsMax: max('lock_waits'),
      rowsReadPerS: mean('rowsReadPerS'),
      rowsWrittenPerS: mean('rowsWrittenPerS'),
      cacheHitRatio: mean('cacheHitRatio'),
    };
  }
  return {
    opsPerSMean: mean('opsPerS'),
    opsPerSMax: max('opsPerS'),
    clientsMax: max('clients'),
    memoryMiBMax: max('memoryMiB'),
  };
}

module.exports = { storeSampler, parseInfo, summarize };
