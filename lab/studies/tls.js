'use strict';

const path = require('node:path');
const { num, readJson, summaryOf } = require('./kit');
const { kindOf } = require('../kinds');
const { profileValues, searchValues } = require('./passed');

// What TLS costs at the entry, per balancer kind (the classic question: what does terminating
// TLS at nginx cost, and does HAProxy or Caddy do it cheaper?): the same replicas of the lab's
// service behind nginx, HAProxy and Caddy, each entry speaking plain HTTP, TLS with a full
// handshake for every arrival (--tls-resume off: the generator opens a new connection per
// request, as Artillery does), TLS resumed (the clients' default), and HTTP/2 (a session per
// arrival). For each cell: the highest rate held under the SLO (npm run capacity), and at a
// common rate (npm run scenario --rate) the p99 and the entry's CPU per request and per new
// connection. Findings by stated rules.
const DEFAULT_KINDS = ['nginx', 'haproxy', 'caddy'];
const MODES = [
  { id: 'plain', label: 'plain HTTP', args: [] },
  { id: 'full', label: 'TLS, full handshakes', args: ['--tls', '--tls-resume', 'off'] },
  { id: 'resumed', label: 'TLS, sessions resumed', args: ['--tls'] },
  { id: 'http2', label: 'HTTP/2 (TLS, resumed)', args: ['--http2'] },
];
const RATE = 200;
const SLO = 'p99<100';
const HOLD_S = 20;

const cellId = (kind, mode, what) => `${kind}-${mode}-${what}`;
// (The study's own modes say --tls and --http2: of what the user gave, the profile only.)
const profileOnly = (o) =>
  Object.fromEntries(Object.entries(profileValues(o)).filter(([name]) => name !== 'tls' && name !== 'http2'));

function plan(o) {
  const kinds = o.balancers ?? DEFAULT_KINDS;
  const rate = Math.max(1, Math.round(RATE * (o.rateScale ?? 1)));
  const holdS = Math.max(3, Math.round(HOLD_S * o.scale));
  const slos = o.slos?.length ? o.slos : [SLO];
  const quick =
    o.scale < 1
      ? ['--repetitions', '1', '--hold', `${Math.max(2, holdS)}s`, '--warmup', '1s', '--precision', '0.1']
      : [];
  const runs = [];
  for (const kind of kinds) {
    for (const mode of MODES) {
      const common = ['--balancer', kind, ...mode.args];
      runs.push({
        kind: 'scenario',
        id: cellId(kind, mode.id, 'at-rate'),
        cell: { kind, mode: mode.id },
        what: `ping at ${rate}/s behind ${kind}, ${mode.label}`,
        expectedS: holdS + 15,
        args: [
          'scenario',
          'ping',
          'endurance',
          'replicated',
          ...common,
          '--generator',
          'fast',
          '--rate',
          String(rate),
          '--duration',
          String(holdS),
          '--no-graphite',
        ],
        // (--profile as given: ./passed.js.)
        values: profileOnly(o),
      });
      runs.push({
        kind: 'capacity',
        id: cellId(kind, mode.id, 'capacity'),
        cell: { kind, mode: mode.id },
        what: `capacity of ping behind ${kind}, ${mode.label}`,
        expectedS: o.scale < 1 ? 120 : 400,
        args: [
          'capacity',
          'ping',
          '--deployments',
          'replicated',
          ...common,
          ...slos.flatMap((s) => ['--slo', s]),
          '--start',
          '100',
          ...quick,
        ],
        values: { ...profileOnly(o), ...searchValues(o) },
      });
    }
  }
  return runs;
}

// A cell's figures: { capacity, p99, cpuPerRequest, cpuPerConnection, resumedShare, protocol }.
function cellOf(studyDir, kind, mode) {
  const s = summaryOf(studyDir, cellId(kind, mode, 'at-rate'));
  const c = readJson(path.join(studyDir, 'runs', cellId(kind, mode, 'capacity'), 'capacity.json'));
  const d = c?.deployments?.[0];
  return {
    capacity: d ? d.maxRate : undefined,
    // A search stopped by --max-rate, the generator or the machine held at least its rate:
    // a lower bound, never compared as a capacity.
    atLeast: Boolean(d?.atLeast),
    capacityText: d?.text ?? null,
    p99: s?.responseTimeMs?.p99 ?? null,
    cpuPerRequest: s?.tls?.entry?.cpuMsPerRequest ?? entryCpuPerRequest(s, kind),
    cpuPerConnection: s?.tls?.entry?.cpuMsPerConnection ?? null,
    resumedShare: s?.tls?.resumedShare ?? null,
    protocol: s?.tls?.protocol ?? (s ? 'http/1.1 (plain)' : null),
  };
}

// A plain run's entry CPU a request, from its node table (a TLS run's summary has it).
function entryCpuPerRequest(s, kind) {
  const row = s?.nodes?.rows?.find((r) => r.node === kindOf(kind).node);
  if (!row || row.cpuPctMean == null || !s.durationS || !s.requestsCompleted) return null;
  return Math.round(((row.cpuPctMean / 100) * s.durationS * 1000 * 1000) / s.requestsCompleted) / 1000;
}

// Findings by stated rules, per kind: what full handshakes cost (its CPU a connection, its
// capacity against plain HTTP's), and how much resumption gave back; then which kind did TLS
// cheapest.
const RULES =
  "a full handshake's cost is the entry's CPU a new connection at the common rate with --tls-resume off; resumption gave back (resumed - full) / (plain - full) of the capacity TLS cost; the cheapest kind is the one with the least CPU a full handshake";
function findingsOf(cells, kinds) {
  const facts = [];
  for (const kind of kinds) {
    const plainC = cells[kind].plain;
    const full = cells[kind].full;
    const resumed = cells[kind].resumed;
    if (full.cpuPerConnection == null && full.capacity == null) continue;
    const parts = [
      `TLS with a new connection per request cost ${kind} ${num(full.cpuPerConnection, 3)} ms of CPU each`,
    ];
    // (Capacities that are lower bounds say nothing of what TLS cost: a study whose searches
    // all stopped at --max-rate once said resumption "gave back -13%".)
    const bounded = [plainC, full, resumed].filter((c) => c.atLeast);
    if (bounded.length && plainC.capacity && full.capacity)
      parts.push(
        `its capacities are not compared: ${bounded.length === 3 ? 'each' : 'some'} held at least the rate its search stopped at, not a knee`,
      );
    else if (plainC.capacity && full.capacity)
      parts.push(`its capacity fell from ${num(plainC.capacity)}/s to ${num(full.capacity)}/s`);
    if (!bounded.length && plainC.capacity && full.capacity && resumed.capacity && plainC.capacity > full.capacity) {
      const back = (resumed.capacity - full.capacity) / (plainC.capacity - full.capacity);
      parts.push(`resumption gave back ${Math.round(back * 100)}% of it (${num(resumed.capacity)}/s)`);
    }
    facts.push(`${parts.join(': ')}.`);
  }
  const priced = kinds.filter((k) => cells[k].full.cpuPerConnection != null);
  if (priced.length > 1) {
    const cheapest = priced.reduce((a, k) => (cells[k].full.cpuPerConnection < cells[a].full.cpuPerConnection ? k : a));
    facts.push(
      `${cheapest} did full handshakes cheapest: ${priced.map((k) => `${k} ${num(cells[k].full.cpuPerConnection, 3)} ms`).join(', ')} of CPU a new connection.`,
    );
  }
  return facts;
}

function sections({ studyDir, plan: runs }) {
  const kinds = [...new Set(runs.map((r) => r.cell.kind))];
  const cells = Object.fromEntries(
    kinds.map((k) => [k, Object.fromEntries(MODES.map((m) => [m.id, cellOf(studyDir, k, m.id)]))]),
  );
  const rows = [];
  for (const kind of kinds) {
    for (const m of MODES) {
      const c = cells[kind][m.id];
      rows.push([
        kind,
        m.label,
        c.capacity === undefined
          ? '-'
          : c.capacity === null
            ? `none (${c.capacityText ?? ''})`
            : `${c.atLeast ? 'at least ' : ''}${num(c.capacity, 1)}/s`,
        num(c.p99, 1),
        num(c.cpuPerRequest, 3),
        num(c.cpuPerConnection, 3),
        c.resumedShare === null ? '-' : `${Math.round(c.resumedShare * 100)}%`,
        c.protocol ?? '-',
      ]);
    }
  }
  const at = runs.find((r) => r.kind === 'scenario');
  const rate = at ? at.args[at.args.indexOf('--rate') + 1] : RATE;
  return [
    {
      title: 'What TLS costs at the entry',
      facts: findingsOf(cells, kinds),
      tables: [
        {
          head: [
            'entry',
            'mode',
            'capacity (held under the SLO)',
            `p99 ms at ${rate}/s`,
            'entry CPU ms a request',
            'entry CPU ms a new connection',
            'resumed',
            'protocol',
          ],
          rows,
          note: `The same three replicas of the lab's service (/ping) behind each entry. A new connection for every arrival, as Artillery makes them: with full handshakes (--tls-resume off), or resuming the last session (the clients' default); HTTP/2 opens a session per arrival too. The entry's CPU is its node's (the node table's mean over the run at ${rate}/s) per request answered and per new connection. Rules: ${RULES}.`,
        },
      ],
    },
  ];
}

module.exports = {
  name: 'tls',
  seed: null,
  title: 'What TLS and HTTP/2 cost at the entry, per balancer kind',
  what: `the lab's service behind ${DEFAULT_KINDS.join(', ')} (--balancers), each as plain HTTP, TLS with full handshakes, TLS resumed and HTTP/2: the capacity under the SLO, p99 at ${RATE}/s and the entry's CPU per request and per new connection`,
  differs: [
    "the course's deployment question asked of the entry: the same three replicas of the lab's service, the entry's kind and TLS mode the only change between cells",
    "the certificate is the lab's own (ECDSA P-256), made for the run; clients open a new connection for every arrival, as Artillery does",
  ],
  flags: ['slo', 'rate-scale', 'profile', 'profile-interval', 'max-rate'],
  plan,
  sections,
  MODES,
  DEFAULT_KINDS,
  findingsOf,
};
