'use strict';

const fs = require('node:fs');
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');
const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { decode, buckets } = require('../measure/histogram');
const { version } = require('../../package.json');

// A run's metrics over OTLP/HTTP to an OpenTelemetry collector (--out otlp=URL), with the
// OpenTelemetry JS SDK (its MeterProvider, its OTLP exporter: JSON to URL/v1/metrics), while
// the run goes (every intervalMs) and once more at its end. Names follow OpenTelemetry's
// semantic conventions where they have one:
//   http.client.request.duration  histogram, s: every answer's time, from the generator's
//       per-second histograms (records.jsonl, read as they are written), with
//       http.request.method, server.address, server.port, http.response.status_code (when
//       every answer of that request in that second had one: the lab keeps one histogram per
//       request and second, not per status), lab.request.name, lab.deployment, lab.run;
//   lab.http.client.responses     counter: answers by status code, exact (and transport
//       errors by error.type);
//   process.cpu.utilization, process.memory.usage   gauges per node (lab.node) of the
//       deployment and the generator, from the sampler;
//   nodejs.eventloop.utilization, nodejs.eventloop.delay.p99, v8js.gc.duration.sum,
//   v8js.memory.heap.used   gauges per node, from the runtime probe (lab/probe/);
//   lab.generator.launched, lab.generator.send_lag.p99  the generator's own.
// A collector that is absent or refuses costs one warning line; the run goes on, and what was
// not delivered is counted for the summary (outputs[]).

// OpenTelemetry's advice for HTTP durations (seconds).
const DURATION_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

// An exporter that says how its exports went (the SDK's own logs nothing by default).
class CountingExporter {
  constructor(inner, onResult) {
    this.inner = inner;
    this.onResult = onResult;
  }
  export(metrics, done) {
    this.inner.export(metrics, (result) => {
      this.onResult(result);
      done(result);
    });
  }
  forceFlush() {
    return this.inner.forceFlush();
  }
  shutdown() {
    return this.inner.shutdown();
  }
  selectAggregationTemporality(kind) {
    return this.inner.selectAggregationTemporality(kind);
  }
}

// The new whole lines of a file since `state.offset`, as parsed records.
function newRecords(file, state) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= state.offset) return [];
    const buf = Buffer.alloc(Math.min(size - state.offset, 64 << 20));
    fs.readSync(fd, buf, 0, buf.length, state.offset);
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) return [];
    state.offset += Buffer.byteLength(text.slice(0, end + 1));
    return text
      .slice(0, end)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return null;
        }
      })
      .filter(Boolean);
  } finally {
    fs.closeSync(fd);
  }
}

// The SDK's provider for one run, its exporter counting what was delivered into status (one
// warning on the first failure: the run goes on without its collector).
function meterProviderOf(o, url, status) {
  let warned = false;
  const exporter = new CountingExporter(new OTLPMetricExporter({ url, timeoutMillis: 3000 }), (result) => {
    status.exports += 1;
    if (result.code === 0) status.delivered += 1;
    else {
      status.failed += 1;
      status.error = String(result.error?.message || result.error || 'refused').slice(0, 300);
      if (!warned) {
        warned = true;
        o.log(`--out otlp=${o.url}: not delivered (${status.error}); the run goes on`);
      }
    }
  });
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: o.intervalMs ?? 5000,
    exportTimeoutMillis: Math.min(4000, o.intervalMs ?? 5000),
  });
  return new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': 'node-deploy-lab',
      'service.version': version,
      'lab.run': o.attributes.run,
      ...(o.attributes.deployment ? { 'lab.deployment': o.attributes.deployment } : {}),
    }),
    readers: [reader],
  });
}

// Each node's gauges (the sampler's CPU and memory, the runtime probe's figures), read at each
// export through gauge(name, unit, description, read).
function nodeGauges(gauge, o) {
  const nodes = () => Object.entries(o.nodes?.() || {});
  gauge('process.cpu.utilization', '1', "Each node's CPU, 1 = one core (the sampler's latest second)", () =>
    nodes().map(([n, f]) => [{ 'lab.node': n }, f.cpuPct / 100]),
  );
  gauge('process.memory.usage', 'By', "Each node's resident memory (its processes summed)", () =>
    nodes().map(([n, f]) => [{ 'lab.node': n }, f.rssMiB * 2 ** 20]),
  );
  const rt = () => Object.entries(o.runtime?.() || {});
  gauge('nodejs.eventloop.utilization', '1', "Each node's event-loop utilization over the run so far", () =>
    rt().map(([n, f]) => [{ 'lab.node': n }, f.eventLoopUtilization]),
  );
  gauge('nodejs.eventloop.delay.p99', 's', "Each node's event-loop delay, p99 over the run so far", () =>
    rt().map(([n, f]) => [{ 'lab.node': n }, f.eventLoopDelayP99Ms == null ? null : f.eventLoopDelayP99Ms / 1000]),
  );
  gauge('v8js.gc.duration.sum', 's', "Each node's garbage collection time over the run so far", () =>
    rt().map(([n, f]) => [{ 'lab.node': n }, f.gcPauseMs == null ? null : f.gcPauseMs / 1000]),
  );
  gauge('v8js.memory.heap.used', 'By', "Each node's heap used at its highest second", () =>
    rt().map(([n, f]) => [{ 'lab.node': n }, f.heapUsedMiBMax == null ? null : f.heapUsedMiBMax * 2 ** 20]),
  );
}

// One exporter per --out otlp=URL. o: { url, recordsFile, attributes: { run, deployment },
// target (the URL the requests went to), name (the run's one request, when the engine keeps no
// names: "GET /ping"), nodes(): { [node]: { cpuPct, rssMiB } } latest, runtime(): { [node]: figures },
// generator(): { cpuPct, rssMiB } latest, intervalMs, log }.
function startOtlp(o) {
  const url = `${o.url.replace(/\/+$/, '')}/v1/metrics`;
  const status = { kind: 'otlp', url, exports: 0, delivered: 0, failed: 0, error: null };
  const provider = meterProviderOf(o, url, status);
  const meter = provider.getMeter('node-deploy-lab', version);
  const duration = meter.createHistogram('http.client.request.duration', {
    unit: 's',
    description: 'Duration of HTTP client requests: each answer, from its due time (the lab generator)',
    advice: { explicitBucketBoundaries: DURATION_BOUNDS },
  });
  const responses = meter.createCounter('lab.http.client.responses', {
    unit: '{response}',
    description: 'Answers by status code, and requests that got none by error.type',
  });
  const launched = meter.createCounter('lab.generator.launched', { unit: '{request}' });
  const target = new URL(o.target);
  const base = {
    'server.address': target.hostname,
    'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    'lab.run': o.attributes.run,
    ...(o.attributes.deployment ? { 'lab.deployment': o.attributes.deployment } : {}),
  };
  // A request's name is "METHOD /path" (lab/scenario/naming.js).
  const withName = (name) => {
    const m = /^([A-Z]+) /.exec(name || '');
    const full = name || o.name;
    const mm = m ?? /^([A-Z]+) /.exec(full || '');
    return { ...base, 'http.request.method': mm ? mm[1] : 'GET', 'lab.request.name': full };
  };
  let lastLag = null;
  const recordSecond = (name, part) => {
    const attrs = withName(name);
    const codes = Object.entries(part.codes || {}).filter(([, n]) => n > 0);
    for (const [code, n] of codes) responses.add(n, { ...attrs, 'http.response.status_code': Number(code) });
    for (const [err, n] of Object.entries(part.errors || {}))
      if (n > 0) responses.add(n, { ...attrs, 'error.type': err });
    const latency = part.hist?.latency;
    if (!latency) return;
    const one = codes.length === 1 && !Object.values(part.errors || {}).some((n) => n > 0);
    const dAttrs = one ? { ...attrs, 'http.response.status_code': Number(codes[0][0]) } : attrs;
    for (const [ms, count] of buckets(decode(latency)))
      for (let i = 0; i < count; i++) duration.record(ms / 1000, dAttrs);
  };
  const state = { offset: 0 };
  const pump = () => {
    for (const r of newRecords(o.recordsFile, state)) {
      if (r.type !== 'second') continue;
      launched.add(r.launched || 0, base);
      if (r.sendLagMs?.p99 != null) lastLag = r.sendLagMs.p99;
      // Per request name where the engine keeps them, else the run's one request.
      if (r.requests && Object.keys(r.requests).length) {
        for (const [name, part] of Object.entries(r.requests)) recordSecond(name, part);
      } else recordSecond(null, r);
    }
  };
  // The gauges, read at each export.
  const gauge = (name, unit, description, read) =>
    meter.createObservableGauge(name, { unit, description }).addCallback((result) => {
      for (const [attrs, v] of read()) if (Number.isFinite(v)) result.observe(v, { ...base, ...attrs });
    });
  nodeGauges(gauge, o);
  gauge('lab.generator.send_lag.p99', 's', "The generator's send lag, p99 of its latest second", () =>
    lastLag === null ? [] : [[{}, lastLag / 1000]],
  );
  // Records are read just before each export: the SDK calls the gauges' callbacks at
  // collection, so one callback pumps first.
  meter.createObservableGauge('lab.generator.records_read', { unit: 'By' }).addCallback((result) => {
    pump();
    result.observe(state.offset, base);
  });
  let ended = false;
  return {
    status,
    // The last records, one last export, and the provider shut down (bounded in time).
    async end() {
      if (ended) return status;
      ended = true;
      pump();
      const deadline = new Promise((resolve) => setTimeout(resolve, 6000).unref());
      await Promise.race([provider.forceFlush().catch(() => {}), deadline]);
      await Promise.race([provider.shutdown().catch(() => {}), deadline]);
      return status;
    },
  };
}

module.exports = { startOtlp, newRecords, DURATION_BOUNDS };
