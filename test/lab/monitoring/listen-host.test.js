'use strict';

// The run's own StatsD when --host / LAB_HOST is not this machine's address (the VM
// cluster's manager): it listens on this machine's address towards that host and says so,
// instead of failing as "port in use"; and a summary without StatsD says why in its first
// lines.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const startMonitoring = require('../../../lab/monitoring');
const { planPorts } = require('../../../lab/topology/ports');
const renderSummary = require('../../../lab/results/render-summary');
const { freePortBase } = require('../../helper');

test('a host that is not this machine: StatsD listens on the local address towards it, with a note', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'listen-'));
  const ports = planPorts(await freePortBase(20), 1);
  // 192.0.2.1 (TEST-NET-1): routed by the default route when there is one, else nowhere.
  const m = await startMonitoring({
    resultsDir: dir,
    graphiteDir: path.join(dir, 'graphite'),
    host: '192.0.2.1',
    ports,
    prefix: 'lab.test',
    statsd: true,
    graphite: 'off',
  });
  try {
    expect(m.sources.statsd.ok).toBe(true);
    expect(m.sources.statsd.note).toMatch(
      /^192\.0\.2\.1 \(--host \/ LAB_HOST\) is not this machine's address: listening on /,
    );
    expect(m.statsd.host).not.toBe('192.0.2.1');
  } finally {
    await m.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a summary whose StatsD did not run says so in its first lines, with the reason', () => {
  // A real run's summary (a committed fixture), its StatsD said missing.
  const fixture = path.join(
    __dirname,
    '..',
    'studies',
    'fixtures',
    'course',
    'runs',
    'ping-load-single',
    'summary.json',
  );
  const s = JSON.parse(fs.readFileSync(fixture, 'utf8'));
  s.monitoring = { ...s.monitoring, statsd: { ok: false, reason: 'port 8083 (statsd) is already in use' } };
  const text = renderSummary(s);
  expect(text.split('\n').slice(0, 3).join('\n')).toMatch(
    /No server-side metrics: StatsD did not run \(port 8083 \(statsd\) is already in use\)/,
  );
});
