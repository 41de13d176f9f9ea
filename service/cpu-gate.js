'use strict';

// The process's CPU as one resource, as a blocking handler uses it, but one that notices a
// client that left. /heavy and /work run here one at a time, in arrival order; while one
// runs, every other request this process receives waits behind it (so /heavy still "blocks
// its process": a /ping sent meanwhile is answered after it, as in the course). The work is
// done in slices of `sliceMs`, and between slices the process reads its sockets: a request
// whose client has gone (a client time-out, nginx closing the upstream connection) is
// stopped if it runs and dropped if it waits. Before, an aborted /work?n=100000 (5.4 s of
// CPU) still ran to its end, and two of them delayed /ping on `single` by 10 s.
//
// At most `maxWaiting` CPU requests wait per process; the next is answered 503 with
// Retry-After (the expected wait) at once. 256 is above what the course's heavest run puts
// on one process (the heavy load ramp to 20/s against `single`, whose clients give up after
// 10 s: about 200 waiting at the peak), so the bound changes no course figure; it stops an
// unbounded pile of work nobody will wait for.
function cpuGate({ maxWaiting = 256, sliceMs = 10, metrics = null } = {}) {
  const queue = []; // { cpu, start, left } in arrival order
  let running = false;
  let waitingCpu = 0;
  let meanJobMs = 0; // of the jobs that ran to their end, for Retry-After

  // Marks a response whose connection closed before it was sent: its client left.
  function watch(res) {
    if (res.watched) return;
    res.watched = true;
    res.on('close', () => {
      if (!res.writableFinished) res.clientLeft = true;
    });
  }

  function pump() {
    while (!running && queue.length) {
      const e = queue.shift();
      if (e.cpu) waitingCpu -= 1;
      if (e.left()) {
        if (e.cpu) metrics?.increment('cpu.dropped');
        continue;
      }
      e.start();
    }
  }

  // Express middleware, first in line: a request that comes while CPU work runs (or waits)
  // waits its turn behind it.
  function hold(req, res, next) {
    // Nothing waits: on its way at once, at no cost (the common case, /ping at full speed).
    if (!running && !queue.length) return next();
    watch(res);
    queue.push({ cpu: false, start: next, left: () => res.clientLeft === true });
    return undefined;
  }

  // Runs a CPU job for this request: `step()` does a little work and returns true when the
  // job is done; `done(ms)` answers, given how long the job ran (its wait not included). Slices of sliceMs, the sockets read between them.
  function run(req, res, step, done) {
    watch(res);
    const job = () => {
      running = true;
      const t0 = performance.now();
      const slice = () => {
        if (res.clientLeft) {
          metrics?.increment('cpu.aborted');
          return finish(null);
        }
        const until = performance.now() + sliceMs;
        let finished = false;
        while (!finished && performance.now() < until) finished = step();
        if (!finished) return setImmediate(slice);
        const ms = performance.now() - t0;
        done(ms);
        return finish(ms);
      };
      slice();
    };
    if (!running && !queue.length) return job();
    if (waitingCpu >= maxWaiting) {
      metrics?.increment('cpu.refused');
      const waitS = Math.max(1, Math.ceil(((waitingCpu + 1) * (meanJobMs || 1000)) / 1000));
      res.set('Retry-After', String(waitS));
      return res.status(503).json({
        error: {
          code: 'BUSY',
          message: `${waitingCpu} CPU requests are waiting in this process (at most ${maxWaiting}); retry after ${waitS} s`,
        },
      });
    }
    waitingCpu += 1;
    queue.push({ cpu: true, start: job, left: () => res.clientLeft === true });
    return undefined;
  }

  function finish(ms) {
    if (ms !== null) meanJobMs = meanJobMs ? meanJobMs * 0.8 + ms * 0.2 : ms;
    running = false;
    pump();
  }

  const stats = () => ({ running, waiting: waitingCpu, held: queue.length - waitingCpu, maxWaiting });
  return { hold, run, stats };
}

module.exports = cpuGate;
