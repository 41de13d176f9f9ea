'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { studyReport } = require('../../studies/kit');
const { WORK } = require('../../paths');
const { contextOf } = require('../../topology/context');
const { assertClaimable, claimDir, resetDir } = require('../../ownership/dirs');
const { own, interrupted } = require('../../ownership/cleanups');
const { holdDir } = require('../../ownership/lock');
const { clock } = require('../../terminal/progress');
const describeMachine = require('../../../common/machine');
const { labChild, reasonOf, interruptChild } = require('../../run/child');
// (Each run, and a group's deployment, given its options as a job.)
const { stepJob, groupUpJob, groupDownJob } = require('../../studies/step-job');
const { isDone, writeRunRecord, checkSettings } = require('../../studies/resume');
const { serveLive } = require('../../dashboard/live');
const { studyBody } = require('../../dashboard/study-body');
const { junitXml } = require('../../outputs/junit');
const { appendStepSummary } = require('../../outputs/step-summary');
const { HELP, COMMAND, studyPlan, planText, settingsOf, listing } = require('./plan');

// The study's runs, one child process each, in order: a run already done is kept, one its
// study learnt is pointless is left out, a group's deployment is made before its first run
// and taken down after its last (and on Ctrl-C or a failure). failures: filled in per run.
// run: { study, name, plan, runDir, values, ctx (its context: state folder, host, ports),
//        settings, failures, progress, started, total }.
async function runPlan(run, log) {
  const { study, name, plan, runDir, values, ctx, settings, failures, progress, started, total } = run;
  // A group of runs sharing one deployment (balancers): deployed before its first run that
  // is not done, taken down after its last, and on Ctrl-C or a failure.
  let group = null;
  const closeGroup = async () => {
    if (!group) return;
    const g = group;
    group = null;
    if (!g.up) return;
    const job = groupDownJob(ctx);
    await labChild(job.args, { input: job.input, passStderr: true }).done;
  };
  own(closeGroup);
  const openGroup = async (g) => {
    log(`deploying for ${g.id}: ${g.deploy.slice(1).join(' ')}`);
    const job = groupUpJob(g.deploy, ctx);
    const r = await runOwned(job.args, { keepStdout: true, input: job.input });
    if (r.code !== 0) return { id: g.id, up: false, why: reasonOf(r.tail, r.code) };
    let url = null;
    try {
      url = JSON.parse(r.stdout).url;
    } catch {
      // a deploy that printed no status is treated as failed below, and taken down
    }
    return { id: g.id, up: true, url, why: url ? null : 'the deploy printed no address' };
  };

  // Ctrl-C reaches the run in progress too (same process group); wait for it to clean up.
  // An interrupt sent to the study alone (not to the terminal's process group) is passed on.
  let current = null;
  own(() => interruptChild(current));
  async function runOwned(args, opts) {
    const { child, done } = labChild(args, { ...opts, passStderr: true });
    current = child;
    const r = await done;
    current = null;
    return r;
  }

  // What a study learns from a run that makes the rest of some runs pointless (your service
  // refusing a path: lab/studies/deployments.js afterRun): those are left out, and said.
  const leftOut = [];
  const learn = (step, dir) => {
    const found = study.afterRun ? study.afterRun(step, dir) : null;
    if (!found) return;
    failures[step.id] = found.why;
    leftOut.push(found);
    log(`${step.id}: ${found.why}`);
  };
  let remaining = total;
  for (const [i, step] of plan.entries()) {
    const dir = runDir(step);
    remaining -= step.expectedS;
    const next = plan[i + 1];
    const finished = isDone(dir, step);
    const skipped = finished ? null : leftOut.find((f) => f.skip(step));
    if (skipped) {
      failures[step.id] = `not run: ${skipped.skipWhy}`;
      log(`run ${i + 1} of ${plan.length}: ${step.id} left out: ${skipped.skipWhy}`);
    } else if (finished) {
      log(`run ${i + 1} of ${plan.length}: ${step.id} already done, skipped`);
      learn(step, dir);
    } else {
      log(
        `run ${i + 1} of ${plan.length}: ${step.id} (${step.what}) | elapsed ${clock((Date.now() - started) / 1000)} | expected remaining ${clock(remaining + step.expectedS)}`,
      );
      let args = step.args;
      let skip = null;
      if (step.group) {
        if (!group || group.id !== step.group.id) {
          await closeGroup();
          group = await openGroup(step.group);
          if (interrupted()) break;
          if (!group.up || !group.url) {
            failures[step.group.id] = `not run: ${group.why}`;
            log(`${step.group.id} not run: ${group.why}`);
          }
        }
        if (!group.url) {
          skip = failures[step.group.id];
          log(`${step.id}: not run (its deployment failed, see above)`);
        } else args = args.map((a) => (a === '{target}' ? group.url : a));
      }
      if (!skip) {
        progress.index = i;
        // (--out goes to the runs that measure: scenarios and capacity searches.)
        const r = await runOwned(stepJob(args, values, dir, ctx, step.values));
        progress.index = null;
        if (interrupted()) break;
        writeRunRecord(dir, { study: name, id: step.id, args: step.args, values: step.values ?? {}, settings });
        if (r.code !== 0) {
          failures[step.id] = `exited ${r.code}: ${reasonOf(r.tail, r.code)} (see ${dir})`;
          log(`run ${step.id} failed (${r.code}); going on with the next`);
        } else learn(step, dir);
      }
    }
    if (group && (!next || !next.group || next.group.id !== group.id)) await closeGroup();
  }
  await closeGroup();
}

// (argv: a command line, or a job: the library's, lab/run/job.js.)
async function studyCommand(argv, { log }) {
  const { help, values, positionals } = COMMAND.read(argv);
  if (help) return { stdout: HELP };
  if (values.list) return { stdout: listing() };
  const { name, study, o, plan } = studyPlan(values, positionals);
  const ctx = contextOf(values);
  const studyDir = values.dir ?? path.join(WORK, 'results', study.defaultDir || `study-${name}`);
  assertClaimable(studyDir, '--dir');
  assertClaimable(ctx.stateDir, '--state-dir');
  const total = plan.reduce((a, r) => a + r.expectedS, 0);
  const runDir = (step) => path.join(studyDir, 'runs', step.id);
  const assumed = study.said ? study.said(o) : null;

  if (values.plan) return { stdout: planText(study, plan, { runDir, total, scale: o.scale, assumed }) };
  if (assumed) log(assumed);

  // One study at a time in a folder, and one command at a time on its state folder (its
  // runs, the study's own children, go on under the study's lock).
  holdDir(studyDir, '--dir');
  holdDir(ctx.stateDir, '--state-dir');

  // The finished runs of a folder are only reused by the same study at the same settings:
  // a quick run is not a step of a full one. study.json says the folder's settings, and
  // each run's own record (study-run.json, lab/studies/resume.js) what that run was made with, so a lost or damaged
  // study.json neither adopts runs of other settings nor refuses runs of the same ones.
  const settings = settingsOf(name, o);
  const settingsFile = path.join(studyDir, 'study.json');
  if (!values.fresh) checkSettings(settingsFile, settings, plan, runDir, studyDir);
  claimDir(studyDir, '--dir');
  if (values.fresh) resetDir(path.join(studyDir, 'runs'), 'runs/ in --dir');
  else claimDir(path.join(studyDir, 'runs'), 'runs/ in --dir');
  fs.writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  const machine = describeMachine({ artillery: require('artillery/package.json').version });
  const failures = {};
  const started = Date.now();
  // The live page: listening before the first run, so a port in use stops the study here.
  // (progress.index: the run in progress, which the live page shows.)
  const progress = { index: null };
  const headlines = new Map();
  const live = await serveLive({
    port: values.dashboard,
    host: ctx.host,
    title: study.title,
    log,
    interrupted: 'the study was interrupted; its finished runs are kept',
    render: () => ({
      html: String(
        studyBody({
          title: study.title,
          plan,
          runDir,
          current: progress.index,
          startedAt: started,
          expectedS: total,
          failures,
          headlines,
        }),
      ),
      status: progress.index === null ? 'between runs' : `run ${progress.index + 1} of ${plan.length}`,
    }),
  });
  const writeReport = () => {
    const missing = plan.filter((r) => !isDone(runDir(r), r)).map((r) => r.id);
    const { html, markdown } = studyReport(study, { studyDir, plan, missing, failures, machine, scale: o.scale });
    fs.writeFileSync(path.join(studyDir, 'study.html'), html);
    fs.writeFileSync(path.join(studyDir, 'study.md'), markdown);
  };
  own(() => {
    if (interrupted()) {
      writeReport();
      log(`interrupted: the finished runs are kept in ${studyDir}; run the study again to go on`);
    }
  });

  await runPlan({ study, name, plan, runDir, values, ctx, settings, failures, progress, started, total }, log);
  writeReport();
  const done = plan.filter((r) => isDone(runDir(r), r)).length;
  writeStudyOutputs(values, { plan, runDir, studyDir, title: study.title, done, failures });
  if (live) {
    await live.end(
      `<p>${done} of ${plan.length} runs done.</p>`,
      `the study has ended; its report: ${path.join(studyDir, 'study.html')}`,
    );
  }
  return {
    stdout: `${study.title}: ${done} of ${plan.length} runs done in ${clock((Date.now() - started) / 1000)}\nreport: ${path.join(studyDir, 'study.html')}\nsummary: ${path.join(studyDir, 'study.md')}`,
    exitCode: Object.keys(failures).some((id) => !failures[id].startsWith('not run:')) ? 1 : 0,
  };
}

// --junit: a testsuite per scenario run of the study (its thresholds); $GITHUB_STEP_SUMMARY:
// the runs done and failed, and the report's path.
function writeStudyOutputs(values, { plan, runDir, studyDir, title, done, failures }) {
  if (values.junit) {
    const runs = plan
      .filter((r) => r.kind === 'scenario')
      .map((r) => {
        try {
          return { name: r.id, summary: JSON.parse(fs.readFileSync(path.join(runDir(r), 'summary.json'), 'utf8')) };
        } catch {
          return null;
        }
      })
      .filter(Boolean);
    fs.mkdirSync(path.dirname(path.resolve(values.junit)), { recursive: true });
    fs.writeFileSync(values.junit, junitXml(runs));
  }
  const failed = Object.entries(failures);
  appendStepSummary(
    `### ${title}\n\n${done} of ${plan.length} runs done${failed.length ? `; ${failed.length} failed or not run:` : '.'}\n${failed.map(([id, why]) => `- \`${id}\`: ${why}`).join('\n')}\n\nReport: \`${path.join(studyDir, 'study.html')}\`\n\n`,
  );
}

studyCommand.usage = HELP;
module.exports = studyCommand;
