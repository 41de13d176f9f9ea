#!/usr/bin/env node
'use strict';

// The deployment to choose, recorded (issue 73): a CPU-bound service the lab has never seen
// (test/fixtures/apps/pricing, /price?rounds=600000: a fixed count of rounds, about 5 ms of
// CPU a request), each replica held to 15% of a core, the two shapes (replicated, and
// multi-replicated of 2 workers) measured at 1 to 4 replicas, the cheapest deployment
// predicted to hold --rate with 30% headroom, checked by a sustained run; then that count's
// capacity searched on its own, to judge the prediction. Goal: the prediction (or the
// measurement it came from) within 20% of the capacity then measured at that count.
// Writes bench/results/choose.json (and choose.html, the choice's page) with the machine.
//   node bench/choose.js [--rate 100] [--hold 60s] [--quick] [--dir DIR] [--from DIR]
// (--quick: levels of 4 s, one verification each, a 10% bracket: ~25 min instead of ~60.)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, flag, withDefault, RESULTS } = require('./kit');

const APP = path.join(__dirname, '..', 'test', 'fixtures', 'apps', 'pricing');
const PATH = '/price?rounds=600000';
const CAP = 'replica=15%';

async function run(values) {
  // (--dir keeps the choice's folder, its sweeps with it, for --from another time.)
  if (values.dir) return measure(values, values.dir);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-choose-'));
  try {
    return await measure(values, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(values, dir) {
  const started = Date.now();
  const search = values.quick ? ['--warmup', '1s', '--precision', '0.1', '--repetitions', '1'] : [];
  const args = [
    'choose',
    PATH,
    '--app',
    APP,
    '--rate',
    String(values.rate),
    '--cap',
    CAP,
    '--hold',
    `${values.hold}s`,
    ...search,
    ...(values.quick ? ['--search-hold', '4s'] : []),
    ...(values.from ? ['--from', values.from] : []),
  ];
  const r = await lab([
    ...args,
    '--json',
    '--state-dir',
    path.join(dir, 'state'),
    '--run-dir',
    path.join(dir, 'choice'),
  ]);
  if (r.out.trim() === '') throw new Error(`choose exited ${r.code} with nothing on stdout`);
  const choice = JSON.parse(r.out);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.cpSync(path.join(dir, 'choice', 'choice.html'), path.join(RESULTS, 'choose.html'));
  const c = choice.choice;
  let check = null;
  if (c) {
    // The chosen count's own capacity, searched as the sweeps searched theirs.
    const cap = await lab([
      'capacity',
      PATH,
      '--app',
      APP,
      '--deployments',
      c.shape,
      '--replicas',
      String(c.replicas),
      ...(c.workers > 1 ? ['--workers', String(c.workers)] : []),
      '--cap',
      CAP,
      ...search,
      ...(values.quick ? ['--hold', '4s'] : []),
      '--json',
      '--state-dir',
      path.join(dir, 'state'),
      '--run-dir',
      path.join(dir, 'check'),
    ]);
    const measured = JSON.parse(cap.out).deployments[0];
    const expected = c.prediction ? c.prediction.rate : c.holds;
    check = {
      replicas: c.replicas,
      expected,
      expectedFrom: c.prediction ? 'the fit' : 'the sweep',
      measured: measured.maxRate,
      measuredText: measured.text,
      errorPct: measured.maxRate ? Math.round(((expected - measured.maxRate) / measured.maxRate) * 1000) / 10 : null,
    };
  }
  const met = check && check.errorPct !== null ? Math.abs(check.errorPct) <= 20 && choice.checks.at(-1).held : false;
  const seconds = Math.round((Date.now() - started) / 1000);
  return {
    headline: { text: choice.text, check, met, seconds },
    method: `npm run ${args.join(' ')}, then npm run capacity at the chosen count (the app: test/fixtures/apps/pricing, never changed for the lab)`,
    seconds,
    goal: 'the choice holds the rate in its sustained check, and its predicted capacity is within 20% of the capacity then measured at that count',
    met,
    choice: {
      text: choice.text,
      candidates: choice.candidates.map(({ curve: _c, ...rest }) => rest),
      checks: choice.checks,
      why: choice.why,
      hpa: choice.hpa,
      files: choice.files,
    },
    check,
  };
}

module.exports = bench(
  {
    name: 'choose',
    usage: 'node bench/choose.js [--rate 100] [--hold 60s] [--quick] [--dir DIR] [--from DIR]',
    flags: {
      rate: withDefault(flag.int(1, 100000), 100),
      hold: withDefault(flag.duration(), 60),
      quick: flag.bool(),
      // The sweeps of an earlier choice (its folder, kept with --dir): only predicted and checked.
      from: flag.path(),
      dir: flag.path(),
    },
    run,
  },
  module,
);
