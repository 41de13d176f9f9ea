'use strict';

const { EventEmitter } = require('node:events');
const { listen, oneRequestModel } = require('../../helper');
const runShard = require('../../../lab/generators/fast-worker');

// One engine thread of the lab's own generators, run in this process: every arrival asked is
// counted, also when the machine stalls it (a busy machine made timers fire over a second late,
// and those arrivals were counted into seconds already sent on: a load-node run counted 107
// of the 110 it launched).
function shard(data) {
  const toShard = new EventEmitter();
  const messages = [];
  return new Promise((resolve) => {
    runShard(data, {
      postMessage: (m) => {
        messages.push(m);
        if (m.type === 'end') resolve(messages);
      },
      on: (event, fn) => toShard.on(event, fn),
    });
  });
}

// A flow of two requests (its virtual users are counted apart from its requests).
function twoRequests(phases) {
  const model = JSON.parse(JSON.stringify(oneRequestModel(phases)));
  const step = model.flows[0].steps[0];
  model.flows[0].steps.push({ request: { ...step.request, name: 'GET /b', url: '/b' } });
  return model;
}

test('arrivals whose timers fire a second and more late are counted, in the second they went', async () => {
  const srv = await listen((req, res) => res.end('ok'));
  try {
    const t0 = performance.timeOrigin + performance.now() + 200;
    const phases = [{ name: 'p', duration: 3, arrivalRate: 20 }];
    const run = shard({
      mode: 'open',
      target: srv.url,
      phases,
      shard: 0,
      of: 1,
      t0,
      timeoutMs: 5000,
      model: twoRequests(phases),
    });
    // The event loop held for 1.5 s from 1.2 s in: every timer due meanwhile fires late.
    await new Promise((r) => setTimeout(r, 1400));
    const until = Date.now() + 1500;
    while (Date.now() < until);
    const seconds = (await run).filter((m) => m.type === 'second');
    // Virtual users (arrivals), each of two requests.
    expect(seconds.reduce((a, s) => a + s.arrivals, 0)).toBe(60);
    expect(seconds.reduce((a, s) => a + s.vusCompleted, 0)).toBe(60);
    expect(seconds.reduce((a, s) => a + s.launched, 0)).toBe(120);
    // Each second is sent once.
    expect(new Set(seconds.map((s) => s.sec)).size).toBe(seconds.length);
  } finally {
    await srv.close();
  }
}, 30000);

test("a phase's maxVusers: arrivals while that many virtual users run are skipped and counted, as Artillery's", async () => {
  // Each virtual user waits 300 ms for its answer; 20 arrivals a second with at most 2 running.
  const srv = await listen((req, res) => setTimeout(() => res.end('ok'), 300));
  try {
    const phases = [{ name: 'capped', duration: 2, arrivalRate: 20, maxVusers: 2 }];
    const seconds = (
      await shard({
        mode: 'open',
        target: srv.url,
        phases,
        shard: 0,
        of: 1,
        t0: performance.timeOrigin + performance.now() + 200,
        timeoutMs: 5000,
        model: twoRequests(phases),
      })
    ).filter((m) => m.type === 'second');
    const started = seconds.reduce((a, s) => a + s.arrivals, 0);
    const skipped = seconds.reduce((a, s) => a + (s.vusSkipped || 0), 0);
    expect(started + skipped).toBe(40);
    // Two at a time, each 600 ms (two requests of 300 ms): about 7 in 2 s, never near 40.
    expect(started).toBeGreaterThanOrEqual(4);
    expect(started).toBeLessThanOrEqual(12);
  } finally {
    await srv.close();
  }
}, 30000);
