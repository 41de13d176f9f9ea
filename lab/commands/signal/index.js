'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { contextOf } = require('../../topology/context');
const { assertClaimable, claimDir, resetDir } = require('../../ownership/dirs');
const { runDirOf } = require('../../results/run-dir');
const { holdDir } = require('../../ownership/lock');
const { adoptStateDir } = require('../../ownership/adopt');
const { labError } = require('../../../common/errors');
const { mib } = require('../../topology/caps');
const { estimateOf, SEED } = require('../../analysis/memory-fit');
const { raiseOwnFdLimit } = require('../../runtime/fd-limit');
const { capacityRows, capacityPage, capacityBody } = require('../../report/capacity-html');
const { serveLive } = require('../../dashboard/live');
const describeMachine = require('../../../common/machine');
const { clock } = require('../../terminal/progress');
// (Its flags, and the HTTP search's said as such: ../../capacity/signal-flags.js.)
const { USAGE, COMMAND, httpFlagInSignal } = require('../../capacity/signal-flags');
// (Its two steps and their deployment: ../../capacity/memory-search.js.)
const { estimate, verify } = require('../../capacity/memory-search');

// Each participant holds one descriptor in the generator (its WebSocket; /room calls share a
// few kept-alive ones) and one in the service: the generator's ceiling is the open-file
// limit, raised as far as this user may (lab/runtime/fd-limit.js), less some room; and at most
// CEILING, which a 2-core machine's generator still opens in a few minutes.
const CEILING = 100000;
function generatorCeiling() {
  const got = raiseOwnFdLimit(CEILING + 2000);
  return { ceiling: Math.max(100, Math.min(got.soft - 1000, CEILING)), fds: got };
}

// (argv: a command line, or a parent's job: lab/run/job.js.)
function plan(argv) {
  const { help, values } = COMMAND.read(argv);
  if (help) return { help: true };
  const levels = (values.levels ?? '1000,2000,5000,10000').split(',').map(Number);
  const { ceiling, fds } = generatorCeiling();
  const max = values.max ?? ceiling;
  if (Math.max(...levels) > ceiling) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'levels',
      levels.join(','),
      `they go up to ${Math.max(...levels)}; this machine's generator opens at most ${ceiling}${fds.note ? ` (${fds.note})` : ''}`,
    );
  }
  // A line through two points always fits (r² 1): it says nothing of how well memory grows
  // linearly, and two levels once gave "356 connections for 500 MiB".
  if (new Set(levels).size < 3) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'levels',
      levels.join(','),
      'at least three different counts are needed: a fit of two always looks perfect',
    );
  }
  const ctx = contextOf(values);
  assertClaimable(ctx.stateDir, '--state-dir');
  return {
    levels: [...levels].sort((a, b) => a - b),
    limitBytes: values.memory ?? 500 * 2 ** 20,
    holdS: values.hold ?? 10,
    rampPerS: values['ramp-per-s'] ?? 500,
    max,
    ceiling,
    fds,
    verify: !values['no-verify'],
    ctx,
    values,
  };
}

// --plan: the steps, and how long each takes at most (the verification's length depends on
// the estimate, so its bound is the ramp to --max).
function planText(p) {
  let from = 0;
  let estimateS = 0;
  for (const n of p.levels) {
    estimateS += Math.ceil((n - from) / p.rampPerS) + p.holdS;
    from = n;
  }
  const lines = [
    `capacity of one service process's signaling connections under ${Math.floor(p.limitBytes / 2 ** 20)} MiB`,
    `estimate: ${p.levels.join(', ')} connections held ${p.holdS} s each, ${p.rampPerS} started a second: about ${clock(estimateS + 15)}`,
  ];
  if (p.verify) {
    const worst = Math.ceil(p.max / p.rampPerS) + 5 + 15;
    lines.push(
      `verify: participants rising ${p.rampPerS} a second to the first failure: at most ${clock(worst)} (to ${p.max})`,
    );
  } else lines.push('verify: skipped (--no-verify)');
  lines.push('nothing was started (--plan)');
  return lines.join('\n');
}

function planOrRefusal(argv) {
  try {
    return plan(argv);
  } catch (err) {
    throw httpFlagInSignal(err) ?? err;
  }
}

async function capacityCommand(argv, { log }) {
  const p = planOrRefusal(argv);
  if (p.help) return { stdout: USAGE };
  if (p.values.plan) return { stdout: planText(p) };
  holdDir(p.ctx.stateDir, '--state-dir');
  // The state folder is the lab's before the run folder is made (a --results-dir inside it).
  adoptStateDir(p.ctx.stateDir);
  // What the run has gathered so far: the live page draws capacity.html's body from it.
  const timeline = [];
  const sofar = {
    limitBytes: p.limitBytes,
    estimate: { points: [], fit: null, capacity: null },
    verification: null,
    withinReach: null,
    seed: SEED,
    timeline,
    levels: p.levels.length,
  };
  let step = 'estimate';
  const live = await serveLive({
    port: p.values.dashboard,
    host: p.ctx.host,
    title: `capacity for ${mib(p.limitBytes)} MiB`,
    log,
    interrupted: 'the capacity run was interrupted',
    render: () => ({
      html: String(capacityBody(sofar, { live: true })),
      status: `${step}: ${timeline.at(-1)?.active ?? 0} participants connected`,
    }),
  });
  const dir = runDirOf(p.values, `capacity-${mib(p.limitBytes)}MiB`);
  if (p.values['run-dir']) resetDir(dir, '--run-dir');
  else claimDir(dir, 'the run folder');
  const est = await estimate(p, dir, log, timeline);
  sofar.estimate.points = est.points;
  const { fit, capacity, noEstimate } = estimateOf(est.points, p.limitBytes);
  Object.assign(sofar.estimate, { fit, capacity });
  log(
    noEstimate
      ? `estimate: ${noEstimate} over ${p.levels.join(', ')}`
      : `estimate: ${capacity} connections for ${mib(p.limitBytes)} MiB`,
  );
  let verification = null;
  let withinReach = null;
  // The verification does not need the estimate: it climbs to the first failure or the
  // ceiling whatever the fit said (only the check within reach is placed by the fit).
  if (p.verify) {
    // Up to the generator's ceiling (or --max): the estimate is what is being checked, so
    // the verification must be free to go past it.
    const target = Math.min(p.max, p.ceiling);
    step = 'verify';
    verification = await verify(p, p.limitBytes, target, dir, log, timeline, step);
    sofar.verification = verification;
    // A limit that holds more than this machine can open is verified only as a lower bound;
    // the model is then also checked at a limit within reach: the one the fit says holds
    // 60% of the ceiling.
    if (verification.verified === null && capacity !== null && capacity > target) {
      const n = Math.floor(target * 0.6);
      const limit = Math.ceil(fit.baseBytes + fit.perConnectionBytes * n);
      if (limit >= 4 * 2 ** 20) {
        log(`the fit says ${mib(limit)} MiB holds ${n}: verifying that too, within this machine's reach`);
        step = 'within reach';
        withinReach = { limitBytes: limit, estimate: n, ...(await verify(p, limit, target, dir, log, timeline, step)) };
      }
    }
  }
  const out = {
    limitBytes: p.limitBytes,
    estimate: { points: est.points, fit, capacity, failuresWhileHolding: est.failures },
    verification,
    withinReach,
    seed: SEED,
    timeline: timeline.map((x) => ({
      step: x.step,
      at: x.at,
      active: x.active,
      limitBytes: x.limitBytes,
      connections: x.connections,
      rssBytes: x.rssBytes,
      heapUsedBytes: x.heapUsedBytes,
      gcCollections: x.gcCollections,
      gcMajor: x.gcMajor,
      gcPauseMs: x.gcPauseMs,
    })),
    machine: describeMachine(),
    notes: [
      ...(noEstimate ? [`estimate: ${noEstimate}`] : []),
      'memory is the service process RSS (/proc through its /stats), as the seed used system memory',
      'participants connect to the service process directly, not through nginx, as the seed connected to its server',
      'one 2-core machine: the generator, the service and the monitoring share it',
    ],
  };
  fs.writeFileSync(path.join(dir, 'capacity.json'), `${JSON.stringify(out, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'capacity.html'), capacityPage(out));
  const t = capacityRows(out);
  out.resultsDir = dir;
  if (live)
    await live.end(
      String(capacityBody(out)),
      `the capacity run has ended; its page: ${path.join(dir, 'capacity.html')}`,
    );
  if (p.values.json) return { stdout: JSON.stringify(out, null, 2) };
  const width = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => String(r[i]).length)));
  const line = (r) =>
    r
      .map((c, i) => String(c).padEnd(width[i]))
      .join('  ')
      .trimEnd();
  return { stdout: [line(t.head), ...t.rows.map(line), '', `Results: ${dir}`].join('\n') };
}

capacityCommand.usage = USAGE;
// (Its flags' schema, which the library validates its options with: lab/api/options.js.)
module.exports = capacityCommand;
