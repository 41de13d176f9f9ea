'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { studyPlan, MATRIX } = require('../study-plan');
const { COURSE } = require('../deployments');
const { SCENARIOS } = require('../../artillery/scenarios');
const { pick } = require('../names');
const { defineCommand, flag, contextOf, CONTEXT, ROOT } = require('../cli/flags');
const { assertClaimable, claimDir, resetDir } = require('../ownership/dirs');
const { own, interrupted } = require('../ownership/cleanups');
const { labError } = require('../../common/errors');
const { clock } = require('../cli/progress');
const table = require('../table');
const describeMachine = require('../../common/machine');
const { renderStudy } = require('../report/study-report');

const USAGE = `usage: npm run study [-- options]
Runs the course report's matrix (each endpoint's scenarios against the four deployments),
then characterizes both black boxes, and writes one report. Finished runs are kept and
skipped when the study is started again.
  --plan                      print the runs with their expected durations, and exit
  --scale F                   multiply every duration (a quick study: --scale 0.05)
  --rate-scale F              multiply every arrival rate
  --duration D                endurance length
  --endpoints a,b             only these (${Object.keys(MATRIX).join(', ')})
  --scenarios a,b             only these (${Object.keys(SCENARIOS).join(', ')})
  --deployments a,b           only these (${COURSE.map((p) => p.name).join(', ')})
  --dir DIR                   the study's folder (default results/study)
  --fresh                     start over: forget the finished runs
  --generator artillery|fast  every run's load generator (default artillery, the course's tool)`;

const COMMAND = defineCommand({
  usage: USAGE,
  flags: {
    ...CONTEXT,
    plan: flag.bool(),
    scale: flag.factor(),
    'rate-scale': flag.factor(),
    duration: flag.duration(),
    endpoints: flag.string(),
    scenarios: flag.string(),
    deployments: flag.string(),
    dir: flag.path(),
    fresh: flag.bool(),
    generator: flag.enum(['artillery', 'fast'], 'generator'),
  },
});

// A comma-separated list of names, each checked against the table's names.
const list = (kind, raw, valid) =>
  raw === undefined
    ? undefined
    : raw.split(',').map((v) => pick(kind, v.trim(), Array.isArray(valid) ? valid : Object.keys(valid)));

function isDone(dir, run) {
  try {
    if (run.kind === 'characterize') return fs.existsSync(path.join(dir, 'result.json'));
    return JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')).status === 'completed';
  } catch {
    return false;
  }
}

function childArgs(run, dir, o, ctx) {
  const common = ['--run-dir', dir, '--json', '--port-base', String(ctx.portBase), '--state-dir', ctx.stateDir];
  if (run.kind === 'characterize') {
    return ['characterize', run.target, '--delay-scale', String(run.delayScale), ...common];
  }
  const args = ['scenario', run.endpoint, run.scenario, run.deployment, ...common, '--scale', String(o.scale)];
  if (o.generator) args.push('--generator', o.generator);
  if (o.rateScale !== 1) args.push('--rate-scale', String(o.rateScale));
  if (o.durationS !== undefined && SCENARIOS[run.scenario].usesDuration) args.push('--duration', String(o.durationS));
  return args;
}

async function studyCommand(argv, { log }) {
  const { help, values } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const o = {
    scale: values.scale ?? 1,
    rateScale: values['rate-scale'] ?? 1,
    durationS: values.duration,
    generator: values.generator,
    endpoints: list('endpoint', values.endpoints, MATRIX),
    scenarios: list('scenario', values.scenarios, SCENARIOS),
    deployments: list(
      'deployment',
      values.deployments,
      COURSE.map((p) => p.name),
    ),
  };
  const plan = studyPlan(o);
  if (!plan.length) throw labError('LAB_ERR_USAGE', 'the filters leave no run in the study');
  if (o.durationS !== undefined && !plan.some((r) => r.scenario && SCENARIOS[r.scenario].usesDuration)) {
    throw labError('LAB_ERR_USAGE', "--duration sets the endurance runs' length, and the filters leave none");
  }
  const ctx = contextOf(values);
  const studyDir = values.dir ?? path.join(ROOT, 'results', 'study');
  assertClaimable(studyDir, '--dir');
  assertClaimable(ctx.stateDir, '--state-dir');
  const total = plan.reduce((a, r) => a + r.expectedS, 0);

  if (values.plan) {
    const rows = plan.map((r, i) => ({
      n: i + 1,
      run: r.id,
      expected: clock(r.expectedS),
      done: isDone(path.join(studyDir, 'runs', r.id), r) ? 'done' : '',
    }));
    return {
      stdout: `${table(rows, [
        ['n', '#'],
        ['run', 'run'],
        ['expected', 'expected'],
        ['done', ''],
      ])}\n\n${plan.length} runs, about ${clock(total)} in all${o.scale !== 1 ? ` at scale ${o.scale}` : ''}`,
    };
  }

  claimDir(studyDir, '--dir');
  if (values.fresh) resetDir(path.join(studyDir, 'runs'), 'runs/ in --dir');
  else claimDir(path.join(studyDir, 'runs'), 'runs/ in --dir');
  const machine = describeMachine({ artillery: require('artillery/package.json').version });
  const failures = {};
  const started = Date.now();
  let child = null;
  // Ctrl-C reaches the run in progress too (same process group); wait for it to clean up.
  // An interrupt sent to the study alone (not to the terminal's process group) is passed on.
  own(() => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return null;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    return gone;
  });

  const writeReport = () => {
    const { html, markdown } = renderStudy({ studyDir, plan, machine, scale: o.scale, failures });
    fs.writeFileSync(path.join(studyDir, 'study.html'), html);
    fs.writeFileSync(path.join(studyDir, 'study.md'), markdown);
  };
  own(() => {
    if (interrupted()) {
      writeReport();
      log(`interrupted: the finished runs are kept in ${studyDir}; run the study again to go on`);
    }
  });

  let remaining = total;
  for (const [i, run] of plan.entries()) {
    const dir = path.join(studyDir, 'runs', run.id);
    remaining -= run.expectedS;
    if (isDone(dir, run)) {
      log(`run ${i + 1} of ${plan.length}: ${run.id} already done, skipped`);
      continue;
    }
    log(
      `run ${i + 1} of ${plan.length}: ${run.id} | elapsed ${clock((Date.now() - started) / 1000)} | expected remaining ${clock(remaining + run.expectedS)}`,
    );
    child = spawn(process.execPath, [path.join(__dirname, '..', 'cli.js'), ...childArgs(run, dir, o, ctx)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const code = await new Promise((r) => child.once('exit', (c, sig) => r(c ?? sig)));
    if (interrupted()) break;
    if (code !== 0) {
      failures[run.id] = `exited ${code} (see ${dir})`;
      log(`run ${run.id} failed (${code}); going on with the next`);
    }
  }
  writeReport();
  const done = plan.filter((r) => isDone(path.join(studyDir, 'runs', r.id), r)).length;
  return {
    stdout: `study: ${done} of ${plan.length} runs done in ${clock((Date.now() - started) / 1000)}\nreport: ${path.join(studyDir, 'study.html')}\nsummary: ${path.join(studyDir, 'study.md')}`,
    exitCode: Object.keys(failures).length ? 1 : 0,
  };
}

studyCommand.usage = USAGE;
module.exports = studyCommand;
