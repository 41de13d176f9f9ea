'use strict';

const express = require('express');
const { burnSteps, workSteps } = require('./heavy');
const cpuGate = require('./cpu-gate');
const localRegistry = require('./signal/local-registry');

const PING_BODY = 'pong';
const ASSET_BYTES = 10240;
const MAX_ASSET_BYTES = 1 << 20;

// An asset's body: its name repeated to the size asked, so the same request always gets the
// same bytes (and a cache serving a wrong object would show).
function assetBody(name, bytes) {
  const unit = Buffer.from(`${name}\n`);
  const body = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at += unit.length) unit.copy(body, at, 0, Math.min(unit.length, bytes - at));
  return body;
}

// Builds the Express app; it never listens, so tests drive it without a port.
// deps: { config, identity: { instance, worker }, upstream, metrics, rooms (signaling),
//         signalStats: () => ({ connections }), gcStats: () => ({ collections, major, pauseMs }) }
function createApp({
  config,
  identity,
  upstream,
  metrics,
  rooms = localRegistry(),
  signalStats = () => null,
  gcStats = () => null,
}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Who served this answer: load balancing is visible from outside.
  app.use((req, res, next) => {
    res.set('X-Instance', identity.instance);
    res.set('X-Worker', String(identity.worker));
    const start = performance.now();
    res.on('finish', () => {
      const endpoint = endpointName(req);
      metrics.timing(`${endpoint}.response_time`, performance.now() - start);
      metrics.increment(`${endpoint}.status.${res.statusCode}`);
    });
    next();
  });

  // /heavy and /work take the process's CPU one at a time, in arrival order, and every
  // request that comes meanwhile waits behind them (./cpu-gate.js). They are routed before
  // the gate's hold, so that they wait as CPU work (counted, bounded), not as plain requests.
  const cpu = cpuGate({ maxWaiting: config.cpuQueueMax, metrics });

  app.get('/heavy', (req, res) => {
    const ms = intParam(req, res, 'ms', 1, 60000, config.heavyMs);
    if (ms === null) return;
    cpu.run(req, res, burnSteps(ms), (tookMs) => res.json({ ms, tookMs: Math.round(tookMs) }));
  });

  // A fixed amount of CPU work, `n` rounds of 10,000 steps (seed 004's servers): under a CPU
  // cap it takes longer, unlike /heavy, which burns a fixed time.
  app.get('/work', (req, res) => {
    const n = intParam(req, res, 'n', 1, 100000, 100);
    if (n === null) return;
    const step = workSteps(n);
    cpu.run(req, res, step, (tookMs) => res.json({ n, result: step.result(), tookMs: Math.round(tookMs) }));
  });

  app.use(cpu.hold);

  app.get('/ping', (req, res) => {
    res.type('text/plain').send(PING_BODY);
  });

  // An answer after `ms` without using the CPU meanwhile (seed 001's 200 ms backend): the
  // process serves everything else while it waits.
  // (POST too: a balancer never sends a POST twice, so what a replica drops shows.)
  const sleep = (req, res) => {
    const ms = intParam(req, res, 'ms', 1, 60000, 200);
    if (ms === null) return;
    const start = performance.now();
    setTimeout(() => res.json({ ms, tookMs: Math.round(performance.now() - start) }), ms);
  };
  app.get('/sleep', sleep);
  app.post('/sleep', sleep);

  for (const [name, base] of [
    ['bbox1', config.bbox1Url],
    ['bbox2', config.bbox2Url],
  ]) {
    app.get(`/${name}`, async (req, res) => {
      const start = performance.now();
      try {
        const answer = await upstream.get(`${base}/`);
        metrics.timing(`bbox.${name}.call`, performance.now() - start);
        if (answer.contentType) res.type(answer.contentType);
        res.status(answer.status).send(answer.body);
      } catch (err) {
        metrics.timing(`bbox.${name}.call`, performance.now() - start);
        metrics.increment(`bbox.${name}.error.${err.kind}`);
        if (err.kind === 'timeout')
          return sendError(
            res,
            504,
            'UPSTREAM_TIMEOUT',
            `${name} did not answer within ${config.upstreamTimeoutMs} ms`,
          );
        if (err.kind === 'refused')
          return sendError(res, 502, 'UPSTREAM_REFUSED', `${name} refused the connection at ${base}`);
        return sendError(res, 502, 'UPSTREAM_FAILED', `${name} failed: ${err.code || err.message}`);
      }
    });
  }

  // Cacheable objects, for the caching edges (the cdn row): N bytes, the same for the same
  // name and size, marked cacheable for assetMaxAgeS.
  app.get('/asset/:name', (req, res) => {
    const { name } = req.params;
    if (!/^[\w.-]{1,64}$/.test(name)) {
      return sendError(res, 400, 'BAD_NAME', 'an asset name is 1 to 64 letters, digits, "_", "-" or "."');
    }
    const bytes = intParam(req, res, 'bytes', 0, MAX_ASSET_BYTES, ASSET_BYTES);
    if (bytes === null) return undefined;
    res.set('Cache-Control', `public, max-age=${config.assetMaxAgeS}`);
    res.type('application/octet-stream').send(assetBody(name, bytes));
  });

  // Seed 002's get_id: the same fresh room id for `size` consecutive callers, then a new one,
  // whichever worker or replica each caller reaches (the rooms' registry counts).
  app.get('/room', async (req, res) => {
    const size = intParam(req, res, 'size', 1, 1000, 2);
    if (size === null) return;
    try {
      res.json({ room: await rooms.roomId(size), size });
    } catch (err) {
      sendError(res, 503, 'ROOMS_UNAVAILABLE', err.message);
    }
  });

  // This process's memory and open signaling connections, for the capacity measurement
  // (lab/commands/capacity.js): a process reports on itself, never on its siblings.
  app.get('/stats', (req, res) => {
    const m = process.memoryUsage();
    res.json({
      instance: identity.instance,
      worker: identity.worker,
      pid: process.pid,
      memory: { rssBytes: m.rss, heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, externalBytes: m.external },
      gc: gcStats(),
      signal: signalStats(),
      cpu: cpu.stats(),
    });
  });

  app.get('/healthz', (req, res) => {
    res.json({ status: 'ok', instance: identity.instance, worker: identity.worker, pid: process.pid });
  });

  app.use((req, res) => sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path}`));

  // Express's default handler would answer HTML; keep every error JSON.
  app.use((err, req, res, next) => {
    if (res.headersSent) return next(err);
    sendError(res, err.status || 500, 'INTERNAL', err.expose ? err.message : 'internal error');
  });

  return app;
}

const known = new Set(['ping', 'heavy', 'sleep', 'work', 'bbox1', 'bbox2', 'healthz', 'asset', 'room', 'stats']);

// A query parameter that must be an integer in [min, max]: its value (or `fallback` when it
// is absent), or null after answering 400 with BAD_<NAME>.
function intParam(req, res, name, min, max, fallback) {
  if (req.query[name] === undefined) return fallback;
  const text = String(req.query[name]);
  const v = /^\d+$/.test(text) ? Number(text) : NaN;
  if (v >= min && v <= max) return v;
  sendError(
    res,
    400,
    `BAD_${name.toUpperCase()}`,
    `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(req.query[name])}`,
  );
  return null;
}
function endpointName(req) {
  const parts = req.path.split('/');
  // /asset/NAME counts as asset: its names would make one metric per object.
  if (parts[1] === 'asset' && parts.length === 3) return 'asset';
  return parts.length === 2 && known.has(parts[1]) ? parts[1] : 'other';
}

function sendError(res, status, code, message) {
  res.status(status).json({ error: { code, message } });
}

module.exports = createApp;
