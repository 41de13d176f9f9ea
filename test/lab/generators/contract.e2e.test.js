'use strict';

// The contract every load generator passes, one table for all engines: counts exact, phases
// honoured, a known delay measured, errors counted by code, p99 <= max, a stop keeps what
// was measured. Servers are local (127.0.0.1, port 0) and runs are a few seconds. Timing
// tolerances are wide enough for a busy 2-core machine (the suite runs two files at once):
// rates within 10%, a 100 ms delay read within +25 ms of what the server held, a 5 s run's
// sending within 5.85 s and its end within 2.5 s of its last answer.
const fs = require('node:fs');
const os = require('node:os');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const path = require('node:path');
const { listen } = require('../../helper');
const { GENERATORS } = require('../../../lab/generators');
const { summarize } = require('../../../lab/results/summary');
const { checkModel } = require('../../../lab/scenario/model');

jest.setTimeout(120000);

// This file's servers and engines (this process and what it starts) ahead of the other files'
// processes while it runs, as root: the timing it judges is the engines' own (Artillery's 5 s
// of sending once took 5.98 s beside five other files). Put back after, for the next file of
// this worker.
const priorityBefore = os.getPriority();
const asRoot = process.getuid?.() === 0;
beforeAll(() => asRoot && os.setPriority(-10));
afterAll(() => asRoot && os.setPriority(priorityBefore));

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gen-'));
// A server that answers after `ms`, keeping how long it really held each request (`held`, ms):
// on a busy machine its timers fire late, and that lateness is the server's, not the
// generator's.
// (It notes when the first request came and when it answered the last: { first, last }.)
// `lateMs()`: how late this process's own loop ran while it served (the median of
// perf_hooks' event-loop delay), the time a request waited here before its `held` began.
async function delayed(ms, status = 200) {
  const held = [];
  const seen = { first: null, last: null };
  // (It samples the loop every 5 ms and records each interval: 5.2 ms on a quiet loop.)
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const lateMs = () => Math.max(0, loop.percentile(50) / 1e6 - 5);
  const srv = await listen((req, res) => {
    const t0 = process.hrtime.bigint();
    seen.first ??= Date.now();
    setTimeout(() => {
      held.push(Number(process.hrtime.bigint() - t0) / 1e6);
      res.writeHead(status).end('ok');
      seen.last = Date.now();
    }, ms);
  });
  const close = srv.close;
  return { ...srv, held, seen, lateMs, close: () => (loop.disable(), close()) };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// stopAfterSeconds: stop once the generator has reported that many seconds of sending (not
// after a fixed time: on a busy machine its start alone can take a second or two).
async function run(engine, plan, { stopAfterMs, stopAfterSeconds } = {}) {
  const records = [];
  let stoppedAt = null;
  const stop = () => {
    stoppedAt = stoppedAt ?? Date.now();
    gen.stop();
  };
  // The plugin's own plan of a one-request scenario (lab/scenario/model.js), with the test's
  // settings: the engines run what the scenario command would hand them.
  const g = GENERATORS[engine];
  const model = checkModel({
    name: 'contract',
    source: { kind: 'catalogue' },
    phases: plan.phases,
    flows: [
      {
        name: 'x',
        weight: 1,
        steps: [{ request: { name: 'GET /', method: 'GET', url: '/', headers: {}, capture: [] } }],
      },
    ],
    timeoutS: (plan.timeoutMs ?? 10000) / 1000,
  });
  const values = {
    keepalive: plan.keepalive ?? false,
    pipelining: plan.pipelining,
    'generator-workers': plan.workers,
    connections: plan.connections,
    requests: plan.requests,
    duration: plan.durationMs !== undefined ? plan.durationMs / 1000 : undefined,
  };
  const gen = g.start(
    { ...g.plan(model, { target: plan.target, targets: plan.targets, values }), targets: plan.targets },
    {
      dir: tmp(),
      onRecord: (r) => {
        records.push(r);
        if (stopAfterSeconds && records.filter((x) => x.type === 'second').length === stopAfterSeconds) stop();
      },
    },
  );
  if (stopAfterMs) setTimeout(stop, stopAfterMs);
  const t0 = Date.now();
  const result = await gen.done;
  const summary = summarize({
    endpoint: 'x',
    scenario: 'y',
    phases: gen.phases ?? g.plan(model, { target: plan.target, values }).phases,
    status: result.status,
    startedAt: new Date(t0).toISOString(),
    records: result.records,
    generator: { name: engine, loop: GENERATORS[engine].loop },
  });
  return { result, summary, ms: Date.now() - t0, msAfterStop: stoppedAt && Date.now() - stoppedAt, records };
}

const OPEN = ['artillery', 'fast'];

describe.each(OPEN)('%s (open loop)', (engine) => {
  test('every asked arrival is sent and answered; a known delay is measured; p99 <= max', async () => {
    const srv = await delayed(100);
    try {
      const phases = [
        { name: 'constant', duration: 3, arrivalRate: 20 },
        { name: 'ramp', duration: 2, arrivalRate: 10, rampTo: 30 },
      ];
      const { summary } = await run(engine, { target: srv.url, phases });
      const t1 = Date.now();
      expect(summary.scenariosLaunched).toBe(100);
      expect(summary.requestsCompleted).toBe(100);
      expect(summary.codes).toEqual({ 200: 100 });
      expect(summary.responseTimeMs.p50).toBeGreaterThanOrEqual(99);
      // The known delay, measured from each request's send: what the server really held it
      // (100 ms, more when its timers fire late on a busy machine), and 25 ms for loopback and
      // the engine's own turn. (The lab's engines time from the due time too, which adds their
      // lateness: that is checked against the send's, never used to widen this bound.)
      const fromSend = summary.responseTimeFromSendMs ?? summary.responseTimeMs;
      const held = median(srv.held);
      expect(held).toBeGreaterThanOrEqual(99);
      expect(fromSend.p50).toBeGreaterThanOrEqual(99);
      // (What the engine added to what the server held: its own turn and the loopback. Not the
      // server's own: a request waits in this process's loop before its `held` begins, and a
      // CI run beside five files read 31.9 ms over it, this loop late on a busy machine. Nor,
      // for the lab's engine, its own loop's lateness, which it measures and reports: an answer
      // is read when its loop gets to it. CI runs M and N read 52.2 and 26.2 ms over the
      // server's hold, the engine's loop starved beside five files. Artillery says none.)
      const engineLate = summary.generator.loopLateMs?.p50 ?? 0;
      if (engine === 'fast')
        expect(summary.generator.loopLateMs).toEqual({ p50: expect.any(Number), p99: expect.any(Number) });
      expect(fromSend.p50 - held).toBeLessThan(25 + srv.lateMs() + engineLate);
      expect(summary.responseTimeMs.p50).toBeGreaterThanOrEqual(fromSend.p50);
      for (const k of ['p50', 'p95', 'p99'])
        expect(summary.responseTimeMs[k]).toBeLessThanOrEqual(summary.responseTimeMs.max);
      expect(summary.phases[0].launched).toBeGreaterThanOrEqual(54);
      expect(summary.phases[0].launched).toBeLessThanOrEqual(66);
      // Ended by its plan: requests sent over its 5 s (the first to the last answer, 100 ms
      // after the last send, within 750 ms of slack for late timers: one second more of
      // sending fails it), and the run over within 2.5 s of
      // the last answer, its drain (no request was left outstanding), save Artillery's own ~13 s
      // telemetry retry offline (MACHINE-NOTES). Timed from what the server saw, not from the
      // start: beside four CPU hogs an engine's start alone once took 5.3 s.
      expect(srv.seen.last - srv.seen.first).toBeLessThan(5000 + 100 + 750);
      expect(t1 - srv.seen.last).toBeLessThan(2500 + (engine === 'artillery' ? 15000 : 0));
    } finally {
      await srv.close();
    }
  });

  test('errors by code: refused, 5xx', async () => {
    const phases = [{ name: 'c', duration: 1, arrivalCount: 5 }];
    const refused = await run(engine, { target: 'http://127.0.0.1:1', phases });
    expect(refused.summary.scenariosLaunched).toBe(5);
    expect(refused.summary.errors).toEqual({ ECONNREFUSED: 5 });
    const srv = await delayed(1, 503);
    try {
      const five = await run(engine, { target: srv.url, phases });
      expect(five.summary.codes).toEqual({ 503: 5 });
    } finally {
      await srv.close();
    }
  });
});

describe('fast (open loop) only', () => {
  test('a /ping-like answer reads above 0 ms (microseconds), from the due time and from the send', async () => {
    const srv = await listen((req, res) => res.end('pong'));
    try {
      const { summary } = await run('fast', { target: srv.url, phases: [{ name: 'c', duration: 2, arrivalRate: 50 }] });
      expect(summary.responseTimeMs.p50).toBeGreaterThan(0);
      expect(summary.responseTimeMs.p50).toBeLessThan(1000);
      expect(summary.responseTimeFromSendMs.p50).toBeGreaterThan(0);
      expect(summary.responseTimeFromSendMs.p50).toBeLessThanOrEqual(summary.responseTimeMs.p50);
      expect(summary.sendLagMs.p99).toBeLessThanOrEqual(summary.sendLagMs.max);
    } finally {
      await srv.close();
    }
  });

  test('time-outs are counted as ETIMEDOUT; a stop keeps the seconds measured so far', async () => {
    const hang = await listen(() => {});
    try {
      const t = await run('fast', {
        target: hang.url,
        timeoutMs: 300,
        phases: [{ name: 'c', duration: 1, arrivalCount: 3 }],
      });
      expect(t.summary.errors).toEqual({ ETIMEDOUT: 3 });
    } finally {
      await hang.close();
    }
    const srv = await delayed(5);
    try {
      const s = await run(
        'fast',
        { target: srv.url, phases: [{ name: 'c', duration: 10, arrivalRate: 20 }] },
        { stopAfterSeconds: 2 },
      );
      expect(s.result.status).toBe('interrupted');
      // Two seconds of 20 a second at least, well short of the ten seconds' 200.
      expect(s.summary.scenariosLaunched).toBeGreaterThanOrEqual(40);
      expect(s.summary.scenariosLaunched).toBeLessThan(120);
      expect(s.msAfterStop).toBeLessThan(4000);
    } finally {
      await srv.close();
    }
  });

  test('two worker threads share one schedule exactly and their histograms merge', async () => {
    const srv = await delayed(20);
    try {
      const { summary } = await run('fast', {
        target: srv.url,
        workers: 2,
        keepalive: true,
        phases: [{ name: 'c', duration: 2, arrivalRate: 100 }],
      });
      expect(summary.generator.workers).toBe(2); // from the run's start record
      expect(summary.scenariosLaunched).toBe(200);
      expect(summary.responseTimeMs.count).toBe(200);
      expect(summary.responseTimeMs.p50).toBeGreaterThanOrEqual(19);
    } finally {
      await srv.close();
    }
  });
});

describe('several targets (no balancer)', () => {
  test.each(['fast', 'closed'])('%s spreads its requests over them evenly', async (engine) => {
    const a = await listen((req, res) => res.writeHead(200, { 'x-who': 'a' }).end('a'));
    const b = await listen((req, res) => res.writeHead(200, { 'x-who': 'b' }).end('b'));
    let hitsA = 0;
    let hitsB = 0;
    a.server.on('request', () => hitsA++);
    b.server.on('request', () => hitsB++);
    try {
      const plan =
        engine === 'fast'
          ? { phases: [{ name: 'c', duration: 1, arrivalCount: 40 }] }
          : { phases: [{ name: 'closed', duration: 1 }], connections: 4, requests: 40 };
      const { summary } = await run(engine, { target: a.url, targets: [a.url, b.url], ...plan });
      expect(summary.requestsCompleted).toBe(40);
      expect([hitsA, hitsB]).toEqual([20, 20]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('closed (closed loop)', () => {
  test('N connections, each sending when answered: throughput = N / delay; --requests is exact', async () => {
    const srv = await delayed(50);
    // N connections: the server holds N requests at once at most, and N at some point.
    let inflight = 0;
    let most = 0;
    srv.server.on('request', (req, res) => {
      most = Math.max(most, ++inflight);
      res.on('finish', () => (inflight -= 1));
    });
    try {
      const { summary } = await run('closed', {
        target: srv.url,
        connections: 4,
        durationMs: 2000,
        keepalive: true,
        phases: [{ name: 'closed', duration: 2 }],
      });
      expect(most).toBe(4);
      // 4 connections / 50 ms = 80/s: 160 in 2 s at most. Judged by what the run measured: 4
      // connections each waiting the mean answer time in turn send 4 x 2 s / mean at most
      // (10% and the flows the end cut over it), however slow a busy machine made each answer.
      // Under it, a connection idle between an answer and its next request: a whole answer's
      // time would read half. (What a busy machine adds between the two is not in the answer
      // time: beside five files, 51 were sent where 71 were the measured bound.)
      // Over it: no connection holds two answers' times at once, so the answer times add up to
      // 4 x the run's span at most, from its start to its last answer (summary.durationS, a
      // closed loop's exact span): the flows under way at 2 s end after it, and once a busy
      // machine held their answers (95 answered at a mean of 119 ms, where 4 x 2 s allows 67).
      const expected = (4 * 2000) / summary.responseTimeMs.mean;
      const spanBound = (4 * summary.durationS * 1000) / summary.responseTimeMs.mean;
      expect(summary.durationS).toBeGreaterThanOrEqual(2);
      expect(summary.requestsCompleted).toBeGreaterThan(expected * 0.6);
      expect(summary.requestsCompleted).toBeLessThanOrEqual(Math.min(165, Math.ceil(spanBound * 1.1) + 4));
      expect(summary.responseTimeMs.p50).toBeGreaterThanOrEqual(49);
      expect(summary.sendLagMs).toBeNull();
      const exact = await run('closed', {
        target: srv.url,
        connections: 3,
        requests: 31,
        keepalive: false,
        phases: [{ name: 'closed', duration: 1 }],
      });
      expect(exact.summary.scenariosLaunched).toBe(31);
      expect(exact.summary.requestsCompleted).toBe(31);
    } finally {
      await srv.close();
    }
  });
});

describe('the keep-alive engine (--keepalive, --pipelining)', () => {
  // A server that counts the connections it was given, and the most requests each connection
  // had in flight at once (Node's server takes a connection's pipelined requests as they are
  // read, each its own timer, and queues their answers in order).
  async function counting(ms) {
    const srv = await delayed(ms);
    srv.sockets = 0;
    srv.mostAtOnce = [];
    const inFlight = new WeakMap(); // socket -> { i (its place in mostAtOnce), now }
    srv.server.on('connection', (socket) => {
      inFlight.set(socket, { i: srv.sockets, now: 0 });
      srv.sockets += 1;
      srv.mostAtOnce.push(0);
    });
    srv.server.on('request', (req, res) => {
      const c = inFlight.get(req.socket);
      c.now += 1;
      srv.mostAtOnce[c.i] = Math.max(srv.mostAtOnce[c.i], c.now);
      res.on('finish', () => (c.now -= 1));
    });
    return srv;
  }

  test('fast --keepalive: every arrival answered on a few reused connections, said in the summary', async () => {
    const srv = await counting(20);
    try {
      const phases = [{ name: 'c', duration: 10, arrivalRate: 10 }];
      const { summary } = await run('fast', { target: srv.url, phases, keepalive: true });
      expect(summary.requestsCompleted).toBe(100);
      expect(summary.codes).toEqual({ 200: 100 });
      // 10/s of 20 ms answers: one in flight at most, one connection enough. A busy machine
      // bunches arrivals (after a stall the engine's due timers run before it reads the answers
      // that came meanwhile, each then needing a connection), so the bound is the arrivals':
      // each connection carried two requests on average at least, which an engine that never
      // reuses one (100 connections) or reuses them poorly fails. At 10/s a stall bunches a fifth
      // of the arrivals it does at 50/s: one of 4.5 s, 45, still passes. (At 50/s for 2 s, CI run M
      // opened 90, a stall of about 1.8 s; a fixed 20 was once 33 beside five other files.)
      expect(srv.sockets).toBeGreaterThanOrEqual(1);
      expect(srv.sockets).toBeLessThanOrEqual(summary.requestsCompleted / 2);
      expect(summary.generator.connections).toEqual({ keptAlive: true, pipelining: 1, opened: srv.sockets });
      expect(summary.generator.connectionsText).toMatch(/^kept-alive connections \(\d+ opened\)$/);
      const fresh = await run('fast', { target: srv.url, phases: [{ name: 'c', duration: 1, arrivalCount: 5 }] });
      expect(fresh.summary.generator.connectionsText).toBe('a new connection per request');
    } finally {
      await srv.close();
    }
  });

  test('closed --keepalive --pipelining 4: each connection carries 4 requests at once', async () => {
    const srv = await counting(50);
    try {
      const { summary } = await run('closed', {
        target: srv.url,
        connections: 2,
        pipelining: 4,
        durationMs: 2000,
        keepalive: true,
        phases: [{ name: 'closed', duration: 2 }],
      });
      // Judged at the server: each connection had more than one request in flight at once, and
      // never more than 4; one had 4. (It was judged by the rate, more than 100 answers in 2 s
      // where one request at a time gives 80 at most: beside five other files, 82 were
      // answered; the machine's speed, not the pipelining, set it.) At most 2 connections x 4
      // in flight / 50 ms for 2 s, and 10 of slack: more is an over-report.
      expect(srv.sockets).toBe(2);
      for (const most of srv.mostAtOnce) expect(most).toBeGreaterThan(1);
      expect(Math.max(...srv.mostAtOnce)).toBe(4);
      expect(summary.requestsCompleted).toBeGreaterThan(0);
      expect(summary.requestsCompleted).toBeLessThanOrEqual(330);
      expect(summary.generator.connectionsText).toMatch(/pipelined: up to 4 requests in flight on each/);
    } finally {
      await srv.close();
    }
  });
});
