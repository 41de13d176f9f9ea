'use strict';

const BODY = 'Hello, world!';

function answer(res) {
  if (res.destroyed) return;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(BODY) });
  res.end(BODY);
}

// Asynchronous: every request is answered after its delay, however many are in flight.
function asyncHandler({ delayMs }) {
  const handler = (req, res) => {
    req.resume();
    setTimeout(answer, delayMs, res);
  };
  handler.stats = () => ({ kind: 'async' });
  return handler;
}

// Synchronous with W workers: at most W requests are in service at once; the rest wait in
// arrival order in a bounded backlog, and past it get 503. Like a thread pool, a worker
// serves a request whose client has gone away all the same (it only notices when it
// writes), which is why an overloaded box stays saturated until its queue drains.
function syncHandler({ delayMs, workers, backlog }) {
  const queue = [];
  let head = 0; // queue[head..] waits; an index instead of shift() keeps a deep queue O(1)
  let busy = 0;

  function serve(res) {
    busy++;
    setTimeout(() => {
      answer(res);
      busy--;
      if (head < queue.length) {
        const next = queue[head];
        queue[head++] = undefined;
        if (head > 1024 && head * 2 > queue.length) (queue.splice(0, head), (head = 0));
        serve(next);
      }
    }, delayMs);
  }

  const handler = (req, res) => {
    req.resume();
    if (busy < workers) return serve(res);
    if (queue.length - head >= backlog) {
      res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '1' });
      return res.end('busy');
    }
    queue.push(res);
  };
  handler.stats = () => ({ kind: 'sync', busy, waiting: queue.length - head });
  return handler;
}

module.exports = { asyncHandler, syncHandler, BODY };
