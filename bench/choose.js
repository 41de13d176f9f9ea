#!/usr/bin/env node
'use strict';

// The deployment to choose at its defaults, timed (issue 82): for each service, `npm run
// choose -- PATH --app APP --rate R --price ...`, nothing else (two shapes at two replica
// sizes, each screened at one replica, then swept in the order of its bound; the check at the
// rate and its headroom for 2 minutes each; the HPA it writes run on a ramp to twice the rate);
// then the chosen count's capacity searched afresh, as its sweep searched it, to judge out of
// sample what the choice said that count holds. The services: the tests' own CPU-bound one
// (test/fixtures/apps/pricing) and one of this bench's own that neither the lab nor its tests
// know (bench/apps/catalog). Goal: a choice in 20 minutes or less each, its check held at the
// rate and at its headroom, and what it said the chosen count holds within 15% of the fresh
// measurement. Writes bench/results/choose.json (and choose.html, the first choice's page).
//   node bench/choose.js [--rate 100] [--services pricing,catalog] [--dir DIR]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, flag, withDefault, RESULTS } = require('./kit');
const { SWEEP } = require('../lab/choose/screen');
const { startSpeedProbe, levelSpans, speedDuring } = require('./speed');
const { spreadPct, SPREAD_PCT } = require('../lab/measure/cpu-speeds');

const ROOT = path.join(__dirname, '..');
// What varies by service: its folder and the request measured.
const SERVICES = {
  pricing: { app: path.join(ROOT, 'test', 'fixtures', 'apps', 'pricing'), path: '/price?rounds=100000' },
  catalog: { app: path.join(ROOT, 'bench', 'apps', 'catalog'), path: '/search?q=oak+lamp' },
};
// Prices a user might give (a core-hour, a GiB-hour): the choice says its cost a month.
const PRICE = 'cpu=0.04,memory=0.005';
const GOAL_S = 1200;
const GOAL_ERROR_PCT = 15;

async function run(values) {
  const names = values.services;
  const root = values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-choose-'));
  const rows = [];
  // (The machine's speed through the whole bench, to compare the sweep's time with the fresh
  // search's: ./speed.js.)
  const speed = startSpeedProbe();
  try {
    for (const name of names) rows.push(await one(name, SERVICES[name], values, path.join(root, name), speed));
  } finally {
    speed.stop();
    if (!values.dir) fs.rmSync(root, { recursive: true, force: true });
  }
  const met = rows.every((r) => r.met);
  return {
    headline: {
      met,
      rows: rows.map((r) => ({ service: r.service, seconds: r.seconds, text: r.text, fresh: r.fresh })),
    },
    method: `npm run choose -- PATH --app APP --rate ${values.rate} --price '${PRICE}' (its defaults otherwise), then npm run capacity at the chosen count with a sweep's settings (${JSON.stringify(SWEEP)})`,
    goal: `a choice in ${GOAL_S / 60} minutes or less, held at the rate and its headroom, and what it said the chosen count holds within ${GOAL_ERROR_PCT}% of a fresh measurement there, for each service`,
    met,
    rows,
  };
}

async function one(name, s, values, dir, speed) {
  fs.mkdirSync(dir, { recursive: true });
  const args = ['choose', s.path, '--app', s.app, '--rate', String(values.rate), '--price', PRICE];
  const started = Date.now();
  const r = await lab([
    ...args,
    '--json',
    '--state-dir',
    path.join(dir, 'state'),
    '--run-dir',
    path.join(dir, 'choice'),
  ]);
  const seconds = Math.round((Date.now() - started) / 1000);
  if (r.out.trim() === '') throw new Error(`${name}: choose exited ${r.code} with nothing on stdout`);
  const choice = JSON.parse(r.out);
  if (!fs.existsSync(path.join(RESULTS, 'choose.html')) || name === 'pricing')
    fs.cpSync(path.join(dir, 'choice', 'choice.html'), path.join(RESULTS, 'choose.html'));
  const c = choice.choice;
  let fresh = null;
  if (c) {
    // The chosen count searched afresh, as its sweep searched its counts, from the same first
    // rate (out of sample: not the point the choice read, a new search of the same count).
    const job = JSON.parse(fs.readFileSync(path.join(dir, 'choice', 'sweeps', c.sweepId, '.lab-job.json'), 'utf8'));
    const start = job.values.start;
    const cap = await lab([
      'capacity',
      s.path,
      '--app',
      s.app,
      '--deployments',
      c.shape,
      '--replicas',
      String(c.replicas),
      ...(c.workers > 1 ? ['--workers', String(c.workers)] : []),
      '--cap',
      `replica=${Math.round(c.cpuPerReplica * 100)}%`,
      ...['--hold', `${SWEEP.hold}s`, '--repetitions', String(SWEEP.repetitions)],
      ...['--verify-hold', `${SWEEP['verify-hold']}s`],
      ...(SWEEP.recheck ? ['--recheck'] : []),
      ...(start ? ['--start', String(start)] : []),
      '--json',
      '--state-dir',
      path.join(dir, 'state'),
      '--run-dir',
      path.join(dir, 'fresh'),
    ]);
    const measured = JSON.parse(cap.out).deployments[0];
    // What a request cost the replicas (CPU ms) at each: when the two differ, the service or
    // the machine changed between them, and the gap follows it rather than the search.
    const sweep = JSON.parse(fs.readFileSync(path.join(dir, 'choice', 'sweeps', c.sweepId, 'capacity.json'), 'utf8'));
    const swept = sweep.deployments.find((d) => d.replicas === c.replicas);
    fresh = {
      replicas: c.replicas,
      start: start ?? null,
      said: c.holds,
      saidFrom: c.from,
      measured: measured.maxRate,
      measuredText: measured.text,
      errorPct: measured.maxRate ? Math.round(((c.holds - measured.maxRate) / measured.maxRate) * 1000) / 10 : null,
      cpuMsPerRequest: { sweep: swept?.cpuMsPerRequest ?? null, fresh: measured.cpuMsPerRequest ?? null },
      // The bench's fixed computation's CPU time while each search's levels of that count ran.
      machineSpeed: machineSpeed(speed, dir, c),
      // Each CPU's speed at each search's start and end, as the searches read them: where the
      // CPUs ran apart, a replica's figure follows the CPU it was given.
      cpuSpeeds: { sweep: sweep.cpuSpeeds ?? null, fresh: JSON.parse(cap.out).cpuSpeeds ?? null },
    };
  }
  const check = choice.checks.at(-1) ?? null;
  const met =
    seconds <= GOAL_S &&
    Boolean(check?.held && check.headroom?.held) &&
    fresh?.errorPct != null &&
    Math.abs(fresh.errorPct) <= GOAL_ERROR_PCT;
  return {
    service: name,
    command: `npm run ${args.join(' ')}`,
    seconds,
    met,
    text: choice.text,
    sizes: choice.sizes,
    screens: (choice.screens || []).map((x) => ({ id: x.id, point: x.points?.[0] ?? null, bound: x.bound ?? null })),
    sweeps: choice.sweeps.map((x) => ({ id: x.id, points: x.points })),
    candidates: choice.candidates.map(({ curve: _c, points: _p, ...rest }) => rest),
    checks: choice.checks,
    autoscaleCheck: choice.autoscaleCheck,
    hpa: choice.hpa,
    cost: c?.cost ?? null,
    fresh,
  };
}

// The fixed work's median CPU time during the chosen count's levels in its sweep and in the
// fresh search: { sweep, fresh, sweepSlowerPct } (a positive percentage: the machine was slower
// while the sweep measured).
function machineSpeed(speed, dir, c) {
  const count = `${c.shape}-x${c.replicas}`;
  const sweep = speedDuring(speed.samples, levelSpans(path.join(dir, 'choice', 'sweeps', c.sweepId, count)));
  const fresh = speedDuring(speed.samples, levelSpans(path.join(dir, 'fresh', count)));
  const sweepSlowerPct =
    sweep && fresh ? Math.round(((sweep.medianMs - fresh.medianMs) / fresh.medianMs) * 1000) / 10 : null;
  // How far apart the CPUs ran while each measured (each CPU's median), over SPREAD_PCT the
  // figure follows the CPU its replica was given, not the search (lab/measure/cpu-speeds.js).
  const apart = (side) => (side?.byCpu ? spreadPct(side.byCpu.map((c) => ({ cpu: c.cpu, ms: c.medianMs }))) : null);
  const cpusApartPct = { sweep: apart(sweep), fresh: apart(fresh) };
  const cpusAgreed =
    cpusApartPct.sweep !== null &&
    cpusApartPct.fresh !== null &&
    Math.max(cpusApartPct.sweep, cpusApartPct.fresh) <= SPREAD_PCT;
  return { sweep, fresh, sweepSlowerPct, cpusApartPct, cpusAgreed };
}

module.exports = bench(
  {
    name: 'choose',
    usage: 'node bench/choose.js [--rate 100] [--services pricing,catalog] [--dir DIR]',
    flags: {
      rate: withDefault(flag.int(1, 100000), 100),
      services: withDefault(
        {
          type: 'custom',
          parse: (text) => {
            const names = String(text)
              .split(',')
              .map((x) => x.trim());
            const bad = names.find((n) => !SERVICES[n]);
            if (bad || !names.length) throw new Error(`${bad} is not a service of this bench`);
            return names;
          },
          expected: `services of this bench, like ${Object.keys(SERVICES).join(',')}`,
        },
        Object.keys(SERVICES),
      ),
      // (Keeps every choice's folder, its screens and sweeps with it.)
      dir: flag.path(),
    },
    run,
  },
  module,
);
