'use strict';

const os = require('node:os');
const { labError } = require('../../common/errors');
const { pick } = require('../names');
const { capNames } = require('./graph');

// --cap NODE=CPU[/PERIOD][,MEMORY]: CPU in percent of one core, as `docker stats` shows it
// (2%, 150%), or in millicores as Kubernetes writes it (250m), or `-` for none; PERIOD the CFS period the share is given over (50ms, 1s; the
// kernel's default is 100 ms, Docker's --cpu-period); MEMORY with K, M or G (binary: 25M is
// 25 MiB, as Docker reads it).
// NODE is a role of the deployment's graph (balancer, edge, replica, backend, bbox) or one
// node's own name (edge-2); a node's own name wins over its roles.
const UNITS = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 };
const MIN_MEMORY = 4 * 2 ** 20;
const MAX_CPU_PCT = 6400;

function parseMemory(text, whole) {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)(?:i?B)?$/i.exec(text);
  const bytes = m ? Math.round(Number(m[1]) * UNITS[m[2].toUpperCase()]) : NaN;
  if (!(bytes >= MIN_MEMORY)) {
    throw new Error(`memory in "${whole}" must be a size of at least 4M, like 25M or 1G, got "${text}"`);
  }
  return bytes;
}

// The kernel takes CFS periods from 1 ms to 1 s, and quotas (share x period) of at least
// 1 ms: a share of 2% has no period under 50 ms.
const MIN_PERIOD_US = 1000;
const MAX_PERIOD_US = 1000000;
const MIN_QUOTA_US = 1000;

function parsePeriod(text, whole, cpuPct) {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s)$/.exec(text);
  const us = m ? Math.round(Number(m[1]) * { us: 1, ms: 1000, s: 1e6 }[m[2]]) : NaN;
  if (!(us >= MIN_PERIOD_US && us <= MAX_PERIOD_US)) {
    throw new Error(`the CFS period in "${whole}" must be from 1ms to 1s, like 50ms, got "${text}"`);
  }
  if (cpuPct === null) throw new Error(`"${whole}" gives a CFS period with no CPU share`);
  const quota = (cpuPct / 100) * us;
  if (quota < MIN_QUOTA_US) {
    const least = Math.ceil(MIN_QUOTA_US / (cpuPct / 100) / 1000);
    throw new Error(
      `in "${whole}", ${cpuPct}% of a ${us / 1000} ms period is a quota of ${Math.round(quota) / 1000} ms, under the kernel's 1 ms minimum: give ${cpuPct}% a period of at least ${least}ms`,
    );
  }
  return us;
}

// CPU with its unit: a percent of one core (25%, as docker stats shows it) or millicores (250m,
// as Kubernetes writes it). A bare number is refused: 0.25 is a quarter of a core to a
// Kubernetes user and a quarter of a percent as docker stats reads it.
function parseCpu(text, whole) {
  if (text === '-' || text === '') return null;
  const m = /^(\d+(?:\.\d+)?)(%|m)?$/.exec(text);
  if (m && !m[2])
    throw new Error(
      `CPU in "${whole}" has no unit: give ${m[1]}% (a percent of one core) or ${Math.round(Number(m[1]) * 1000)}m (millicores: ${m[1]} of a core), got "${text}"`,
    );
  const pct = m ? (m[2] === 'm' ? Number(m[1]) / 10 : Number(m[1])) : NaN;
  if (!(pct >= 0.1 && pct <= MAX_CPU_PCT)) {
    throw new Error(
      `CPU in "${whole}" must be a percent of one core from 0.1% to ${MAX_CPU_PCT}% (or 1m to ${MAX_CPU_PCT * 10}m), like 2% or 250m, got "${text}"`,
    );
  }
  return pct;
}

// One --cap value -> { node, cpuPct, memoryBytes }; a bad one is LAB_ERR_INVALID_VALUE.
function parseCap(text) {
  try {
    return parseCapText(text);
  } catch (err) {
    throw labError('LAB_ERR_INVALID_VALUE', `--cap ${err.message} (see --help)`);
  }
}

function parseCapText(text) {
  const m = /^([\w.-]+)=([^,/]*)(?:\/([^,]*))?(?:,(.+))?$/.exec(text);
  if (!m) throw new Error(`expected NODE=CPU[/PERIOD][,MEMORY], like edge=2%,25M or edge=2%/50ms, got "${text}"`);
  const cpuPct = parseCpu(m[2], text);
  const cap = {
    node: m[1],
    cpuPct,
    periodUs: m[3] !== undefined ? parsePeriod(m[3], text, cpuPct) : null,
    memoryBytes: m[4] ? parseMemory(m[4], text) : null,
  };
  if (cap.cpuPct === null && cap.memoryBytes === null) throw new Error(`"${text}" caps nothing`);
  return cap;
}

// The caps per node of a graph: { [nodeName]: { cpuPct, memoryBytes } }. Role caps first,
// then the nodes' own; a later flag for the same name wins. An unknown name is an error.
function resolveCaps(caps, graph) {
  const valid = capNames(graph);
  for (const c of caps) pick('cap node', c.node, valid);
  const out = {};
  const apply = (node, c) => {
    const prev = out[node.name] || { cpuPct: null, periodUs: null, memoryBytes: null };
    // A period belongs to the share it came with: a new share without one takes the default.
    const cpu = c.cpuPct !== null ? { cpuPct: c.cpuPct, periodUs: c.periodUs ?? null } : prev;
    out[node.name] = {
      cpuPct: cpu.cpuPct,
      periodUs: cpu.periodUs ?? null,
      memoryBytes: c.memoryBytes ?? prev.memoryBytes,
    };
  };
  for (const c of caps) for (const n of graph.nodes) if (n.roles.includes(c.node) && n.name !== c.node) apply(n, c);
  for (const c of caps) for (const n of graph.nodes) if (n.name === c.node) apply(n, c);
  return out;
}

// Caps this machine cannot give are refused, not silently accepted: more CPU than its cores
// (a cap of 1000% on 2 cores caps nothing), more memory than it has. `machine`: { cores,
// memoryBytes }. Engines on other machines (a swarm) are not checked against this one.
function checkCapsFit(caps, machine = { cores: os.cpus().length, memoryBytes: os.totalmem() }) {
  for (const [node, c] of Object.entries(caps)) {
    if (c.cpuPct !== null && c.cpuPct > machine.cores * 100) {
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        'cap',
        node,
        `${c.cpuPct}% of a core is more than this machine's ${machine.cores} core(s) (at most ${machine.cores * 100}%)`,
      );
    }
    if (c.memoryBytes !== null && c.memoryBytes > machine.memoryBytes) {
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        'cap',
        node,
        `${mib(c.memoryBytes)} MiB is more memory than this machine has (${mib(machine.memoryBytes)} MiB)`,
      );
    }
  }
  return caps;
}

const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
const describeCap = (c) =>
  [
    c.cpuPct !== null ? `${c.cpuPct}% CPU${c.periodUs ? ` over ${c.periodUs / 1000} ms periods` : ''}` : null,
    c.memoryBytes !== null ? `${mib(c.memoryBytes)} MiB` : null,
  ]
    .filter(Boolean)
    .join(', ');

// The replica's CPU cap among --cap's (the last `replica=` that gives a CPU share), or undefined.
const replicaCap = (caps = []) => caps.filter((c) => c.node === 'replica' && c.cpuPct !== null).at(-1);

module.exports = { MIN_QUOTA_US, parseCap, resolveCaps, checkCapsFit, describeCap, parseMemory, mib, replicaCap };
