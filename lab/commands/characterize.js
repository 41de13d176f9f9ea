'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { contextOf } = require('../topology/context');
const { assertClaimable, claimDir, resetDir } = require('../ownership/dirs');
const { runDirOf } = require('../results/run-dir');
const { adoptStateDir } = require('../ownership/adopt');
const { holdDir } = require('../ownership/lock');
const { labError } = require('../../common/errors');
const closedLoop = require('../generators/closed-loop-client');
const { serveLive } = require('../dashboard/live');
const { sweep, analyze } = require('../analysis/black-box-model');
const { get } = require('../http');
const { planPorts } = require('../topology/ports');
const characterizeHtml = require('../report/characterize-html');
const { characterizeBody } = characterizeHtml;
const describeMachine = require('../../common/machine');
const { appOf } = require('../app/flags');
// (Its words and flags: ../run/characterize-flags.js, read by a study's run too.)
const { USAGE, COMMAND } = require('../run/characterize-flags');
// (What it measures, brought up for it; its account in the terminal.)
const { startBoxes, startThroughService, startApp } = require('../run/characterize-targets');
const { textOf } = require('../report/characterize-text');

// (argv: a command line, or a parent's job: lab/run/job.js.)
function plan(argv) {
  const { help, values, given, positionals } = COMMAND.read(argv);
  if (help) return { help: true };
  const [target] = positionals;
  const named = target === 'bbox1' || target === 'bbox2';
  // A path of your service (--app): deployed here, reached through its entry.
  const app = appOf(values);
  if (app || target.startsWith('/')) {
    if (!app)
      throw labError('LAB_ERR_MISSING_ARG', `--app DIR: ${target} is a path of your service (or give a whole URL)`);
    if (!target.startsWith('/'))
      throw labError('LAB_ERR_USAGE', `with --app, give a path of your service (like /api/items), not "${target}"`);
    if (['key', 'delay-scale', 'via'].some((f) => given.has(f)))
      throw labError(
        'LAB_ERR_FLAGS_EXCLUDE',
        'app',
        ['key', 'delay-scale', 'via'].find((f) => given.has(f)),
        '--key, --via and --delay-scale apply to the named black boxes only',
      );
  } else if (!named) {
    let url;
    try {
      url = new URL(target);
    } catch {
      throw labError('LAB_ERR_UNKNOWN_NAME', 'target', target, ['bbox1', 'bbox2', 'an http:// URL'], null);
    }
    if (!/^https?:$/.test(url.protocol))
      throw labError('LAB_ERR_USAGE', `the target URL must be http:// or https://, got "${target}"`);
    if (['key', 'delay-scale', 'via'].some((f) => given.has(f)))
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        ['key', 'delay-scale', 'via'].find((f) => given.has(f)),
        null,
        'it applies to the named black boxes only, not a URL',
      );
  }
  const ctx = contextOf(values);
  if (named || app) assertClaimable(ctx.stateDir, '--state-dir');
  if (values['run-dir']) assertClaimable(values['run-dir'], '--run-dir');
  return {
    target,
    named,
    app,
    via: values.via ?? 'direct',
    delayScale: values['delay-scale'] ?? 1,
    key: values.key ?? '',
    maxConcurrency: values['max-concurrency'] ?? 32,
    cycles: values.cycles ?? 4,
    ctx,
    ports: planPorts(ctx.portBase, 1),
    values,
  };
}

async function characterizeCommand(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };

  let url = p.target;
  if (p.named || p.app) holdDir(p.ctx.stateDir, '--state-dir');
  // The live page: the levels measured so far, drawn by the characterization's own page.
  const seenLevels = [];
  const seenWaves = [];
  const live = await serveLive({
    port: p.values.dashboard,
    host: p.ctx.host,
    title: `characterize ${p.target}`,
    log,
    interrupted: 'the characterization was interrupted',
    render: () => ({
      html: String(
        characterizeBody({
          target: p.target,
          cycles: p.cycles,
          verdict: {
            kind: 'sweeping',
            explanation: `${seenLevels.length} level(s) measured so far${seenWaves.length ? `; bursts: ${seenWaves.map((w) => `${w.firstWave} of ${w.size} in the first wave`).join(', ')}` : ''}.`,
            levels: [...seenLevels].sort((a, b) => a.concurrency - b.concurrency),
          },
        }),
      ),
      status: `sweeping: ${seenLevels.length} level(s) so far`,
    }),
  });
  if (p.named || p.app) adoptStateDir(p.ctx.stateDir);
  if (p.named) url = p.via === 'service' ? await startThroughService(p, log) : await startBoxes(p, log);
  if (p.app) url = await startApp(p, log);

  // A first look at the delay sets how long each level is held.
  const probeOnce = await get(url, { timeoutMs: 60000 }).catch((err) => {
    throw labError('LAB_ERR_UNHEALTHY', url, err.message);
  });
  const second = await get(url, { timeoutMs: 60000 });
  const d0 = Math.max(1, Math.min(probeOnce.ms, second.ms));
  const started = Date.now();
  log(`characterizing ${url}: about ${Math.round(d0)} ms a request; sweeping concurrency up to ${p.maxConcurrency}`);

  const probe = (c) =>
    closedLoop({
      url,
      concurrency: c,
      warmupMs: d0 + 50,
      durationMs: p.cycles * d0 + 50,
      timeoutMs: Math.max(10000, 20 * d0),
    });
  const result = await sweep(probe, {
    maxConcurrency: p.maxConcurrency,
    burst: (count) => closedLoop.burst({ url, count, timeoutMs: Math.max(10000, 20 * d0) }),
    onWave: (w) => {
      seenWaves.push(w);
      log(`  burst of ${String(w.size).padStart(3)}: ${w.firstWave} answered in the first wave`);
    },
    onLevel: (l) =>
      seenLevels.push(l) &&
      log(
        `  concurrency ${String(l.concurrency).padStart(3)}: ${l.throughput.toFixed(2)}/s, latency mean ${Math.round(l.latencyMs.mean ?? 0)} ms, max ${Math.round(l.latencyMs.max ?? 0)} ms`,
      ),
  });
  const verdict = analyze(result);
  const out = {
    target: p.named
      ? `${p.target} (key "${p.key}"${p.delayScale !== 1 ? `, delays x${p.delayScale}` : ''}, ${p.via})`
      : p.app
        ? `${p.target} of ${p.app.name}`
        : url,
    url,
    verdict: { ...verdict, levels: undefined },
    levels: verdict.levels.map((l) => ({ ...l, samples: undefined })),
    cycles: p.cycles,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    machine: describeMachine(),
  };
  const dir = runDirOf(
    p.values,
    `characterize-${p.named ? p.target : p.app ? p.app.name.replace(/\W+/g, '-') : 'url'}`,
  );
  if (p.values['run-dir']) resetDir(dir, '--run-dir');
  else claimDir(dir, 'the run folder');
  fs.writeFileSync(path.join(dir, 'result.json'), `${JSON.stringify(out, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'index.html'), characterizeHtml({ ...out, verdict: { ...verdict } }));
  out.resultsDir = dir;
  if (live) {
    await live.end(
      String(characterizeBody({ ...out, verdict: { ...verdict } })),
      `the characterization has ended; its page: ${path.join(dir, 'index.html')}`,
    );
  }
  if (p.values.json) return { stdout: JSON.stringify(out, null, 2) };

  return { stdout: textOf(out, verdict, dir) };
}

characterizeCommand.usage = USAGE;
// (Its flags' schema, which the library validates its options with: lab/api/options.js.)
module.exports = characterizeCommand;
