'use strict';

// The lab's own generator (fast or closed) spread over several nodes (--load-nodes N): the
// lab coordinates, the nodes send. Each node runs lab/generators/remote-shard.js, which
// connects here with the run's token. The coordinator:
//   1. measures each node's clock against its own, NTP-style: several pings, and from the
//      one with the shortest round trip, offset = node's clock - midpoint of the trip;
//   2. hands out the shards as worker threads get them on one machine: node i runs the
//      threads offset_i .. offset_i + w_i - 1 of all the nodes' threads, so the arrivals
//      (or connections) are split exactly as they would be between threads;
//   3. sets one start, t0 in its clock, sent to each node in that node's clock;
//   4. merges every node's seconds as they come (lab/measure/merge.js: counts added,
//      histograms merged exactly) into records of the same form as a one-machine run's;
//   5. keeps a row per node: its offset and round trip, what it launched, its send lag and
//      latency from its own histograms, and the CPU it reported every second.
// How the shards are started is the launcher's (swarm tasks: ./swarm-launcher.js; child
// processes on this machine, for the tests: ./local-launcher.js).
const crypto = require('node:crypto');
const net = require('node:net');
const { labError } = require('../../common/errors');
const { lines } = require('../../hub/lines');
const { secondMerger } = require('../measure/merge');
const { merge, figures } = require('../measure/histogram');
const { phaseOffsets, totalArrivals } = require('./schedule');
const { checkHello, checkMessage } = require('./node-messages');
const { helloGate } = require('../../hub/gate');
const { threadsFor } = require('./own-process');

// The longest the start is set ahead for the nodes' threads to be up.
const MAX_AHEAD_MS = 60000;

const clock = () => performance.timeOrigin + performance.now();
// Nodes in their names' order (node2 before node10), whatever order they connected in.
const byNode = (a, b) => a.hello.node.localeCompare(b.hello.node, 'en', { numeric: true });
const PINGS = 8;
const r1 = (v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);

// Threads for one node: the one-machine rule (fast.js) on this node's share of the plan.
const nodeThreads = (plan, nodes, cores) => threadsFor(plan, cores, nodes);

// The clock offset from ping samples [{ sent, received, at }] (coordinator's sent/received,
// the node's `at`): the sample with the shortest round trip, whose midpoint is the least
// uncertain (by half its round trip).
function clockOffset(samples) {
  let best = null;
  for (const s of samples) {
    const rtt = s.received - s.sent;
    if (!best || rtt < best.rttMs) best = { rttMs: rtt, offsetMs: s.at - (s.sent + s.received) / 2 };
  }
  return best;
}

// The limits a node's messages are held to: the most it may launch in all, and the last
// second it may report (the plan's length, its timeout and a minute of slack).
function boundsOf(plan) {
  const closed = plan.mode === 'closed';
  const bound = closed ? (plan.requests ?? Infinity) : totalArrivals(plan.phases);
  const planS = closed
    ? plan.durationMs !== undefined
      ? plan.durationMs / 1000
      : 7 * 86400
    : phaseOffsets(plan.phases).totalMs / 1000;
  return { closed, bound, maxSec: Math.ceil(planS + (plan.timeoutMs ?? 10000) / 1000 + 60) };
}

// One row per load node, from its own seconds and reports. run: { t0, closed, total, plan }.
function nodeRow(peer, { t0, closed, total, plan }) {
  const secs = peer.seconds;
  const sum = (k) => secs.reduce((a, s) => a + (s[k] || 0), 0);
  const errors = secs.reduce((a, s) => a + Object.values(s.errors || {}).reduce((x, y) => x + y, 0), 0);
  const cpu = peer.cpu.map((c) => c.cpuPct);
  return {
    node: peer.hello.node,
    address: peer.address,
    cores: peer.hello.cores,
    workers: peer.workers ?? null,
    shards: peer.workers ? [peer.shardOffset, peer.shardOffset + peer.workers - 1] : null,
    clockOffsetMs: r1(peer.offsetMs),
    rttMs: r1(peer.rttMs),
    launched: sum('launched'),
    completed: sum('completed'),
    errors,
    latencyMs: figures(merge(secs.map((s) => s.hist?.latency))),
    sendLagMs: figures(merge(secs.map((s) => s.hist?.lag))),
    cpuS: peer.done ? r1(peer.done.cpuS) : null,
    cpuPctMean: cpu.length ? r1(cpu.reduce((a, b) => a + b, 0) / cpu.length) : null,
    cpuPctMax: cpu.length ? r1(Math.max(...cpu)) : null,
    rssMiBMax: peer.cpu.length ? r1(Math.max(...peer.cpu.map((c) => c.rssMiB))) : null,
    lost: Boolean(peer.lost || peer.dropped),
    // When it was lost, in seconds from the start, and (dropped) what it sent.
    lostAtS: peer.lostAt && t0 !== null ? r1((peer.lostAt - t0) / 1000) : null,
    ...(peer.dropped ? { dropped: peer.dropped } : {}),
    // The arrivals (open loop) its threads were given: its share of the schedule.
    asked: !closed && peer.workers && total ? Math.round((totalArrivals(plan.phases) * peer.workers) / total) : null,
  };
}

// The per-second CPU of the busiest node: what the summary judges the generator by (the
// node most likely to fall behind), with every node's own figures in its row.
function busiestSamples(peers) {
  const bySec = new Map();
  for (const p of peers)
    for (const c of p.cpu) {
      const at = Math.round(c.at / 1000) * 1000;
      const cur = bySec.get(at);
      if (!cur || c.cpuPct > cur.cpuPct) bySec.set(at, { at, cpuPct: c.cpuPct, rssMiB: c.rssMiB, node: p.hello.node });
    }
  return [...bySec.values()].sort((a, b) => a.at - b.at);
}

// The coordinator of one run: its server, the nodes that said hello (peers), their clocks,
// the common start (t0), the merged seconds, and the run's end.
class Coordinator {
  constructor(plan, o) {
    this.plan = plan;
    this.o = o;
    this.N = o.nodes;
    this.onRecord = o.onRecord || (() => {});
    this.log = o.log || (() => {});
    this.onStarting = o.onStarting || (() => {});
    this.token = crypto.randomBytes(16).toString('hex');
    this.records = [];
    this.peers = []; // { socket, hello, samples, clock, workers, shardOffset, t0, seconds... }
    this.stopping = false;
    this.finished = false;
    this.done = new Promise((r) => (this.resolveDone = r));
    this.launched = null;
    this.t0 = null;
    this.total = 0; // every node's threads
    this.merger = null;
    this.phaseTimers = [];
    this.failure = null;
    this.connectTimer = null;
    Object.assign(this, boundsOf(plan));
    // Strangers get a few seconds to say hello, and only so many wait at once (hub/gate.js).
    this.gate = helloGate();
    this.server = net.createServer((socket) => this.accept(socket));
  }

  emit(r) {
    this.records.push(r);
    this.onRecord(r);
  }

  tokenOk(given) {
    const expected = Buffer.from(this.token);
    const b = Buffer.from(String(given));
    return b.length === expected.length && crypto.timingSafeEqual(b, expected);
  }

  accept(socket) {
    socket.setNoDelay(true);
    this.gate.admit(socket);
    const peer = {
      socket,
      hello: null,
      samples: [],
      pending: new Map(),
      seconds: [],
      cpu: [],
      ended: false,
      t0: null,
      seen: { launched: 0, completed: 0, arrivals: 0 },
      say: (obj) => !socket.destroyed && socket.write(`${JSON.stringify(obj)}\n`),
    };
    lines(socket, (line) => this.onLine(peer, line), { maxBytes: 4 << 20 });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!peer.hello || peer.ended) return;
      peer.ended = true;
      peer.lost = true;
      peer.lostAt = clock();
      if (this.merger) this.merger.end(peer.hello.node);
      if (!this.stopping) this.failure = this.failure || `load node ${peer.hello.node} went away before its end`;
      this.maybeFinish();
    });
  }

  onLine(peer, line) {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      m = undefined;
    }
    if (!peer.hello) {
      // The first line names the run: anything else is not one of ours, and is closed
      // without a word (a `null` line once crashed the lab here).
      const hello = checkHello(m);
      if (!hello || !this.tokenOk(m.token) || this.peers.length >= this.N || this.t0 !== null)
        return peer.socket.destroy();
      this.gate.greeted(peer.socket);
      peer.hello = hello;
      peer.helloAt = clock();
      peer.address = peer.socket.remoteAddress;
      this.peers.push(peer);
      const { N } = this;
      this.log(`  load node ${this.peers.length}/${N}: ${hello.node} (${peer.address}, ${hello.cores} cores)`);
      this.onStarting(`starting load nodes: ${this.peers.length} of ${N} ready`);
      if (this.peers.length === N) this.allHere();
      return undefined;
    }
    try {
      checkMessage(m, peer, { bound: this.bound, startedAt: this.t0 ?? clock(), now: clock() });
      return this.onMessage(peer, m);
    } catch (err) {
      if (!err.nonsense) throw err;
      return this.drop(peer, err.message);
    }
  }

  // A node that sent nonsense: its connection closed, its seconds no longer merged, named in
  // the run's failure, and the run stopped (what it measured cannot be trusted with it).
  drop(peer, why) {
    const node = peer.hello.node;
    this.log(`  load node ${node} sent nonsense (${why}): dropped`);
    this.failure = this.failure || `load node ${node} sent nonsense (${why}) and was dropped`;
    peer.ended = true;
    peer.dropped = why;
    if (this.merger) this.merger.end(node);
    peer.socket.destroy();
    this.stop();
  }

  onMessage(peer, m) {
    if (m.op === 'pong') {
      const sent = peer.pending.get(m.id);
      if (sent === undefined) return;
      peer.pending.delete(m.id);
      peer.samples.push({ sent, received: clock(), at: m.at });
      if (peer.samples.length < PINGS) this.ping(peer);
      else peer.synced();
    } else if (m.op === 'record') {
      const r = m.record;
      if (r.type === 'second') {
        const sec = Math.round((r.at - peer.t0) / 1000);
        if (sec < 0 || sec > this.maxSec)
          throw Object.assign(new Error(`a second ${sec} s from the start`), { nonsense: true });
        peer.seconds.push({ sec, launched: r.launched, completed: r.completed, errors: r.errors, hist: r.hist });
        this.merger.add(peer.hello.node, sec, r);
      } else if (r.type === 'done') {
        peer.done = r;
      }
    } else if (m.op === 'cpu') {
      peer.cpu.push({ at: clock(), cpuPct: r1(m.cpuPct), rssMiB: r1(m.rssMiB) });
    } else if (m.op === 'end') {
      peer.ended = true;
      this.merger.end(peer.hello.node);
      this.maybeFinish();
    }
  }

  ping(peer) {
    const id = peer.samples.length;
    peer.pending.set(id, clock());
    peer.say({ op: 'ping', id });
  }

  // Every node is here: clocks, shards, the common start.
  async allHere() {
    clearTimeout(this.connectTimer);
    const { peers, plan } = this;
    await Promise.all(
      peers.map(
        (peer) =>
          new Promise((resolve) => {
            peer.synced = resolve;
            this.ping(peer);
          }),
      ),
    );
    if (this.stopping) return this.finish();
    let next = 0;
    for (const peer of peers) {
      Object.assign(peer, clockOffset(peer.samples));
      peer.workers = nodeThreads(plan, this.N, peer.hello.cores);
      peer.shardOffset = next;
      next += peer.workers;
    }
    this.total = next;
    // The start: far enough ahead for every node's threads to be up (a few hundred ms on a
    // machine; seconds on emulated nodes) and for the plan to reach the slowest. At least as
    // long as the slowest node took from its launch to its hello (its task and its Node
    // started: its threads start about as slowly), up to MAX_AHEAD_MS: on emulated nodes
    // beside other work a fixed 8 s was not enough, one node's requests going out up to 15 s
    // after their due times in a CI run.
    const booted = this.launchedAt ? Math.max(...peers.map((p) => p.helloAt - this.launchedAt)) : 0;
    const ahead =
      Math.max(this.o.startAheadMs ?? 1500, Math.min(booted, MAX_AHEAD_MS)) +
      2 * Math.max(...peers.map((p) => p.rttMs));
    const t0 = Math.ceil(clock() + ahead);
    this.t0 = t0;
    this.merger = secondMerger(
      peers.map((p) => p.hello.node),
      (second) => this.emit(second),
      { at: (sec) => t0 + sec * 1000 },
    );
    this.emit({
      type: 'start',
      at: t0,
      generator: plan.mode === 'open' ? 'fast' : 'closed',
      workers: this.total,
      loadNodes: peers.map((p) => ({
        node: p.hello.node,
        workers: p.workers,
        clockOffsetMs: r1(p.offsetMs),
        rttMs: r1(p.rttMs),
      })),
    });
    const { starts } = phaseOffsets(plan.phases);
    this.phaseTimers = plan.phases.map((ph, index) =>
      setTimeout(
        () => this.emit({ type: 'phase', index, name: ph.name, at: t0 + starts[index] }),
        Math.max(0, t0 + starts[index] - clock()),
      ),
    );
    for (const peer of peers) {
      peer.t0 = t0 + peer.offsetMs;
      peer.say({
        op: 'start',
        plan: { ...plan, workers: peer.workers, shardOffset: peer.shardOffset, shardTotal: this.total, t0: peer.t0 },
      });
    }
    this.onStarting(`load nodes ready: the load starts in ${Math.round((t0 - clock()) / 100) / 10} s`);
    this.log(
      `  clocks: ${[...peers]
        .sort(byNode)
        .map((p) => `${p.hello.node} ${p.offsetMs >= 0 ? '+' : ''}${r1(p.offsetMs)} ms (round trip ${r1(p.rttMs)} ms)`)
        .join(', ')}; start in ${Math.round(t0 - clock())} ms`,
    );
    return undefined;
  }

  maybeFinish() {
    if (this.t0 === null) {
      if (this.stopping || this.failure) this.finish();
      return;
    }
    if (this.peers.every((p) => p.ended)) this.finish();
  }

  async finish() {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.connectTimer);
    this.phaseTimers.forEach(clearTimeout);
    if (this.merger) this.merger.flush();
    const { peers } = this;
    const rows = [...peers].sort(byNode).map((p) => nodeRow(p, this));
    if (this.t0 !== null) {
      this.emit({
        type: 'done',
        at: clock(),
        interrupted: this.stopping,
        cpuS: peers.reduce((a, p) => a + (p.done?.cpuS || 0), 0),
        startupCpuS: peers.reduce((a, p) => a + (p.done?.startupCpuS || 0), 0),
        loadNodes: rows,
      });
    }
    for (const p of peers) p.socket.destroy();
    this.gate.close();
    this.server.close();
    const { launched } = this;
    // (Timed: on a busy cluster the removal took long enough to be seen.)
    const removing = clock();
    await (launched
      ? launched
          .stop()
          .then(() => this.log(`  the load tasks removed in ${Math.round((clock() - removing) / 100) / 10} s`))
          .catch((err) => this.log(`  the load tasks: ${err.message}`))
      : null);
    const status = this.failure ? `failed (${this.failure})` : this.stopping ? 'interrupted' : 'completed';
    this.resolveDone({ records: this.records, status, loadNodes: rows });
  }

  stop() {
    if (this.finished) return this.done;
    if (!this.stopping) {
      this.stopping = true;
      for (const p of this.peers) p.say({ op: 'stop' });
      this.maybeFinish();
      // A node that never answers the stop does not hold the run: its seconds so far count.
      setTimeout(() => {
        for (const p of this.peers) if (!p.ended) p.socket.destroy();
        this.finish();
      }, 10000).unref();
    }
    return this.done;
  }

  // Listens (on the run's own port, --port-base, so that a firewall rule or a test knows it),
  // then has the launcher start the nodes, each given this address and the run's token; a
  // node that has not said hello in time fails the run, with what the launcher knows of why.
  async listen() {
    const { o, N, server } = this;
    try {
      await new Promise((resolve, reject) => {
        server.once('error', (err) =>
          reject(
            err.code === 'EADDRINUSE'
              ? labError('LAB_ERR_PORT_IN_USE', o.port, "the load nodes' coordinator")
              : labError(
                  'LAB_ERR_USAGE',
                  `the load nodes' coordinator on ${o.listenHost}:${o.port ?? 0}: ${err.message}`,
                ),
          ),
        );
        server.listen(o.port ?? 0, o.listenHost, resolve);
      });
      const { port } = server.address();
      const address = `${o.advertiseHost || o.listenHost}:${port}`;
      this.log(`coordinating ${N} load node(s) on ${address}`);
      this.onStarting(`starting load nodes: 0 of ${N} ready`);
      this.launchedAt = clock();
      this.launched = await o.launcher.launch({
        count: N,
        env: { LAB_COORDINATOR: address, LAB_COORDINATOR_TOKEN: this.token },
      });
      if (this.finished) return this.launched.stop();
      const waitMs = o.connectTimeoutMs ?? 120000;
      this.connectTimer = setTimeout(async () => {
        const why = this.launched.why ? await this.launched.why().catch(() => '') : '';
        this.failure = `${this.peers.length} of ${N} load node(s) connected in ${Math.round(waitMs / 1000)} s${why ? `: ${why}` : ''}`;
        this.finish();
      }, waitMs);
    } catch (err) {
      this.failure = err.message;
      this.finish();
    }
    return undefined;
  }
}

// plan: as for fast.js, with mode. o: { nodes: N, launcher, listenHost, port (0 or absent:
// any free one), advertiseHost, onRecord, log, onStarting (what the nodes are doing before
// the load starts, for the progress line), connectTimeoutMs, startAheadMs }.
function startDistributed(plan, o) {
  const c = new Coordinator(plan, o);
  c.listen();
  return {
    pid: null,
    get workers() {
      return c.peers.reduce((a, p) => a + (p.workers || 0), 0) || null;
    },
    done: c.done,
    stop: () => c.stop(),
    samples: () => busiestSamples(c.peers),
  };
}

module.exports = { startDistributed, clockOffset, nodeThreads };
