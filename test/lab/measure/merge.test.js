'use strict';

const { mergeSecond, secondMerger } = require('../../../lab/measure/merge');
const { create, encode, decode, figures } = require('../../../lab/measure/histogram');

// Shards with known samples (µs): the merge of their encoded histograms must read exactly
// what one histogram of all their samples reads. Never an average of the shards' figures.
function shard(samples, extra = {}) {
  const h = create();
  for (const v of samples) h.recordValue(v);
  return {
    launched: samples.length,
    completed: samples.length,
    codes: { 200: samples.length },
    errors: {},
    pending: 0,
    hist: { latency: encode(h), fromSend: encode(h), lag: null },
    ...extra,
  };
}

// Deterministic, skewed samples: a fast shard and a slow one with a long tail.
const fast = Array.from({ length: 5000 }, (_, i) => 500 + ((i * 7919) % 1000));
const slow = Array.from({ length: 1000 }, (_, i) => 20000 + ((i * 104729) % 180000));

test('merged percentiles equal those of the concatenated samples, not the mean of the shards', () => {
  const merged = mergeSecond([shard(fast), shard(slow)], 1000);
  const all = create();
  for (const v of [...fast, ...slow]) all.recordValue(v);
  // Histograms travel encoded (a decoded one knows its max to its bucket, 3 digits): the
  // merge equals one histogram of every sample, as sent.
  expect(merged.latencyMs).toEqual(figures(decode(encode(all))));
  // And both read the samples' own percentiles to HdrHistogram's 3 significant digits.
  const sorted = [...fast, ...slow].sort((a, b) => a - b);
  for (const q of [50, 90, 99]) {
    const exact = sorted[Math.ceil((q / 100) * sorted.length) - 1] / 1000;
    expect(Math.abs(merged.latencyMs[`p${q}`] - exact) / exact).toBeLessThan(0.002);
  }
  expect(merged.launched).toBe(6000);
  expect(merged.codes).toEqual({ 200: 6000 });
  // The shards' p99s bracket the merged one; their mean is far from it.
  const p99s = [shard(fast), shard(slow)].map((s) => mergeSecond([s], 0).latencyMs.p99);
  expect(merged.latencyMs.p99).toBeGreaterThanOrEqual(Math.min(...p99s));
  expect(merged.latencyMs.p99).toBeLessThanOrEqual(Math.max(...p99s));
  expect(Math.abs(merged.latencyMs.p99 - (p99s[0] + p99s[1]) / 2)).toBeGreaterThan(10);
  expect(merged.latencyMs.p99).toBeLessThanOrEqual(merged.latencyMs.max);
});

test('counts, codes and errors add up; a shard with nothing that second adds nothing', () => {
  const a = shard([1000, 2000], { codes: { 200: 1, 503: 1 }, errors: { ECONNRESET: 2 }, pending: 3 });
  const empty = {
    launched: 0,
    completed: 0,
    codes: {},
    errors: {},
    pending: 1,
    hist: { latency: null, fromSend: null, lag: null },
  };
  const m = mergeSecond([a, empty], 5000);
  expect(m).toMatchObject({
    type: 'second',
    at: 5000,
    launched: 2,
    completed: 2,
    pending: 4,
    codes: { 200: 1, 503: 1 },
    errors: { ECONNRESET: 2 },
  });
  expect(m.latencyMs.count).toBe(2);
});

test('the merger emits each second once every source sent it or ended, in order', () => {
  const out = [];
  const m = secondMerger(['a', 'b'], (r) => out.push(r), { at: (sec) => 1000 * sec });
  m.add('a', 0, shard([100]));
  m.add('a', 1, shard([100]));
  expect(out).toHaveLength(0); // b has sent nothing yet
  m.add('b', 1, shard([100])); // out of order
  expect(out).toHaveLength(0);
  m.add('b', 0, shard([100, 200]));
  expect(out.map((r) => [r.at, r.launched])).toEqual([
    [0, 3],
    [1000, 2],
  ]);
  m.add('a', 2, shard([100]));
  m.end('b'); // b is done: a's second 2 alone
  expect(out.map((r) => r.launched)).toEqual([3, 2, 1]);
  m.add('b', 0, shard([1])); // late, for a merged second: dropped, not double counted
  expect(out).toHaveLength(3);
});

test('flush merges what arrived when a source never ended (an interrupted run)', () => {
  const out = [];
  const m = secondMerger(['a', 'b'], (r) => out.push(r), { at: (sec) => sec });
  m.add('a', 0, shard([100]));
  m.add('a', 1, shard([100]));
  m.flush();
  expect(out.map((r) => r.launched)).toEqual([1, 1]);
});

test("a TLS run's seconds: new connections, resumed sessions and protocols added, their histograms merged", () => {
  const { create, encode } = require('../../../lab/measure/histogram');
  const { mergeSecond } = require('../../../lab/measure/merge');
  const h = (...us) => {
    const x = create();
    for (const v of us) x.recordValue(v);
    return encode(x);
  };
  const part = (handshakes, resumed, proto, offered = resumed) => ({
    launched: handshakes,
    completed: handshakes,
    codes: { 200: handshakes },
    errors: {},
    tls: { handshakes, offered, resumed, protocols: { [proto]: handshakes } },
    hist: { latency: h(1000), connect: h(300, 400), handshake: h(900, 1100), ttfb: h(500) },
  });
  const m = mergeSecond(
    [part(2, 1, 'h2', 2), part(3, 3, 'http/1.1'), { launched: 0, completed: 0, codes: {}, errors: {}, hist: {} }],
    0,
  );
  expect(m.tls).toEqual({ handshakes: 5, offered: 5, resumed: 4, protocols: { h2: 2, 'http/1.1': 3 } });
  const { decode } = require('../../../lab/measure/histogram');
  expect(decode(m.hist.handshake).totalCount).toBe(4);
  expect(decode(m.hist.ttfb).totalCount).toBe(2);
  // A plain run's second: no TLS figures at all.
  expect(
    mergeSecond([{ launched: 1, completed: 1, codes: {}, errors: {}, hist: { latency: h(1000) } }], 0).tls,
  ).toBeUndefined();
});
