'use strict';

const { signalSummary, signalRows } = require('../../../lab/results/signal-summary');
const { create, encode } = require('../../../lab/measure/histogram');

const hist = (values) => {
  const h = create();
  for (const v of values) h.recordValue(v * 1000);
  return encode(h);
};

describe('signaling summary', () => {
  const second = (at, launched, completed, active, sent, received, connect, relay, errors = {}) => ({
    type: 'second',
    at,
    launched,
    completed,
    codes: {},
    errors,
    pending: active,
    signal: { active, sent, received },
    hist: { latency: hist(connect), relay: hist(relay) },
  });
  const records = [
    { type: 'start', at: 0, generator: 'signal', workers: 1 },
    second(0, 3, 3, 3, 10, 8, [2, 4, 6], [1, 1, 2]),
    second(1000, 2, 1, 4, 6, 6, [8], [3, 40], { ECONNREFUSED: 1 }),
    { type: 'done', at: 2000, interrupted: false },
  ];

  test('sessions, failures, messages and percentiles from the merged histograms, never averaged', () => {
    const s = signalSummary(records, { stages: [{ target: 5 }], roomSize: 4, updateEveryS: 10 });
    expect(s.participants).toEqual({ target: 5, peak: 4, started: 5 });
    expect([s.sessions, s.failures, s.failureCodes]).toEqual([4, 1, { ECONNREFUSED: 1 }]);
    expect(s.messages).toEqual({ sent: 16, received: 14, sentPerS: 8, receivedPerS: 7 });
    expect(s.connectMs.count).toBe(4);
    expect(s.connectMs.max).toBeCloseTo(8, 1);
    expect(s.relayMs.p50).toBeCloseTo(2, 1);
    expect(s.relayMs.p99).toBeLessThanOrEqual(s.relayMs.max);
    const rows = signalRows(s);
    expect(rows.map((r) => r[1])).toEqual([
      'sessions',
      'failures',
      'connecting (ms)',
      'messages sent',
      'messages received',
      'relay latency (ms)',
      'peak connected',
    ]);
  });
});
