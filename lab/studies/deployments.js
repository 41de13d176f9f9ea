'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { buildPhases } = require('../../artillery/phases');
const { COURSE } = require('../topology/deployments');
const { readScript } = require('../scenario/from-artillery');
const { requestNames } = require('../scenario/model');
const { parseSlo, assertSloNames } = require('../capacity/slo');
const loadRun = require('../report/load-run');
const { compareBody, label } = require('../report/run-report');
const { observations } = require('../report/study-report');
const { capacityHttpBody, capacityText } = require('../report/capacity-http-html');
const { CHANGED } = require('../capacity/verdict');
const { html: h } = require('../report/html');
const { readJson, YOUR_SERVICE_FLAGS } = require('./kit');
const { serviceValues, profileValues, scriptValues, scaleValues, searchValues } = require('./passed');
const { pathSlug } = require('../results/run-dir');
const page = require('../report/page');

// Your service in the four deployments (the course study, for the service you bring): each of
// its paths (or your Artillery script) under the course's load, spikes and endurance shapes on
// single, replicated, multi and multi-replicated (and each --balancers kind), side by side, then
// the capacity of every deployment under the SLO (npm run capacity). In short, the course
// study's report for your service.
const SCENARIOS = ['load', 'spikes', 'endurance'];
// A run's cost besides its phases: deploy, the generator's start, the last answers, teardown.
const RUN_OVERHEAD_S = 12;
const TIMEOUT_TAIL_S = 10;
// The capacity search of four deployments at default settings (lab/capacity/plan.js, --plan).
const CAPACITY_S_PER_DEPLOYMENT = 265;

// What the study assumes for the user, said before it starts (and under --plan): with no
// path and no script it loads /, which many services answer 404 (every answer then failed).
function said(o) {
  if (o.script || o.paths) return null;
  return 'no --endpoints or --script given: every run loads / of your service (name its paths with --endpoints /a,/b)';
}

// After a run (or a finished one found again): when every answer was a 4xx, the service
// refuses that request (a path it does not have, a method it does not take), which no
// deployment changes, so the rest of that source's runs would measure refusals too. Returns
// { why, skip(run) } to fail this run and leave those out, or null.
function afterRun(step, dir) {
  const s = step.kind === 'scenario' ? readJson(path.join(dir, 'summary.json')) : null;
  if (!s) return null;
  const codes = Object.entries(s.codes || {});
  const answered = codes.reduce((a, [, n]) => a + n, 0);
  const refused = codes.every(([c]) => Number(c) >= 400 && Number(c) < 500);
  if (!answered || !refused || (s.answersFailed?.count ?? 0) !== answered) return null;
  const seen = codes.map(([c, n]) => `${c} x${n}`).join(', ');
  const hint = step.source.startsWith('/')
    ? 'name the paths it serves with --endpoints /a,/b'
    : "check the script's requests against your service";
  return {
    why: `every answer was a refusal (${seen}): your service refuses ${step.source} whichever the deployment, so the study leaves out its other runs; ${hint}`,
    skipWhy: `${step.source} got only refusals in ${step.id} (${seen})`,
    skip: (r) => r.source === step.source,
  };
}

function plan(o) {
  if (!o.app) return [];
  const deployments = o.deployments ?? COURSE.map((p) => p.name);
  const balancers = o.balancers ?? [null];
  // (Your service, its stores, --profile and --tls, as given: values, ./passed.js.)
  const yours = { ...serviceValues(o), ...profileValues(o) };
  const gen = ['--generator', o.generator ?? 'fast'];
  const runs = [];
  const sources = o.script ? [{ script: o.script }] : (o.paths ?? ['/']).map((p) => ({ path: p }));
  for (const src of sources) {
    const source = src.script ? path.basename(src.script) : src.path;
    // An SLO on a request the source does not send is refused up front (lab/capacity/slo.js).
    if (o.slos?.length) {
      const names = src.script ? requestNames(readScript(src.script, o.scriptOptions ?? {})) : [`GET ${src.path}`];
      assertSloNames(o.slos.map(parseSlo), names, src.script ? `the script ${source}` : `the path ${source}`);
    }
    const slug = src.script ? source.replace(/\.\w+$/, '') : pathSlug(src.path);
    for (const scenario of src.script ? ['script'] : (o.scenarios ?? SCENARIOS)) {
      const phases = src.script
        ? readScript(src.script, { ...o.scriptOptions, scale: o.scale, rateScale: o.rateScale }).phases
        : buildPhases(src.path, scenario, { scale: o.scale, rateScale: o.rateScale, durationS: o.durationS });
      const phaseS = phases.reduce((a, ph) => a + ph.duration, 0);
      for (const deployment of deployments) {
        for (const balancer of balancers) {
          const b = balancer ? ['--balancer', balancer] : [];
          runs.push({
            kind: 'scenario',
            source,
            id: `${slug}-${scenario}-${deployment}${balancer ? `-${balancer}` : ''}`,
            what: `${src.script ? source : `${source} ${scenario}`} on ${deployment}${balancer ? ` behind ${balancer}` : ''}`,
            section: `${source} ${scenario}`,
            expectedS: Math.round(phaseS + RUN_OVERHEAD_S + TIMEOUT_TAIL_S),
            args: ['scenario', ...(src.script ? [deployment] : [src.path, scenario, deployment]), ...b, ...gen],
            values: {
              ...yours,
              ...scriptValues(o),
              ...scaleValues(o, { scale: !src.script, duration: scenario === 'endurance' }),
            },
          });
        }
      }
    }
    runs.push({
      kind: 'capacity',
      source,
      id: `${slug}-capacity`,
      what: `capacity of ${source} on ${deployments.join(', ')}`,
      expectedS: Math.round(
        CAPACITY_S_PER_DEPLOYMENT * deployments.length * (o.scale <= 0.2 ? 0.25 : o.scale < 1 ? 0.6 : 1),
      ),
      args: [
        'capacity',
        ...(src.script ? [] : [src.path]),
        '--deployments',
        deployments.join(','),
        ...(o.slos ?? []).flatMap((s) => ['--slo', s]),
        // A quick study verifies once, and a very quick one holds short levels (a smoke run).
        ...(o.scale < 1 ? ['--repetitions', '1'] : []),
        ...(o.scale <= 0.2 ? ['--hold', '3s', '--warmup', '1s', '--precision', '0.2', '--start', '100'] : []),
      ],
      values: { ...yours, ...scriptValues(o), ...searchValues(o) },
    });
  }
  return runs;
}

// The report: each group of runs side by side (as the course study's), then the capacity.
function render({ studyDir, plan: runs, machine, scale, failures = {} }) {
  const html = [h`<h1>Your service in the four deployments</h1>`];
  const md = ['# Your service in the four deployments', ''];
  const missing = runs.filter((r) => !isDoneRun(studyDir, r)).map((r) => r.id);
  html.push(
    h`<p>${runs.length} planned runs${scale !== 1 ? h`, durations scaled by ${scale}` : ''}; ${missing.length ? h`not done: ${missing.join(', ')}` : 'all done'}.</p>`,
  );
  md.push(
    `${runs.length} planned runs${scale !== 1 ? `, durations scaled by ${scale}` : ''}; ${missing.length ? `not done: ${missing.join(', ')}` : 'all done'}.`,
    '',
  );
  for (const [id, reason] of Object.entries(failures)) {
    html.push(h`<p class="warn">${id} failed: ${reason}</p>`);
    md.push(`- **${id} failed**: ${reason}`);
  }
  if (Object.keys(failures).length) md.push('');
  const groups = new Map();
  for (const r of runs.filter((x) => x.kind === 'scenario' && isDoneRun(studyDir, x))) {
    if (!groups.has(r.section)) groups.set(r.section, []);
    groups.get(r.section).push(loadRun(path.join(studyDir, 'runs', r.id)));
  }
  for (const [key, loaded] of groups) {
    const facts = observations(loaded);
    html.push(h`<h2>${key}</h2><ul class="facts">${facts.map((f) => h`<li>${f}</li>`)}</ul>`, compareBody(loaded));
    md.push(
      `## ${key}`,
      '',
      ...facts.map((f) => `- ${f}`),
      '',
      '| run | scenarios launched | requests sent | requests completed | failed answers | p50 | p99 | max |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const r of loaded) {
      const s = r.summary;
      const t = s.responseTimeMs || {};
      md.push(
        `| ${label(r)} | ${s.scenariosLaunched} | ${s.requestsSent ?? '-'} | ${s.requestsCompleted} | ${s.answersFailed?.count ?? '-'} | ${t.p50 ?? '-'} | ${t.p99 ?? '-'} | ${t.max ?? '-'} |`,
      );
    }
    md.push('');
  }
  for (const r of runs.filter((x) => x.kind === 'capacity' && isDoneRun(studyDir, x))) {
    const c = JSON.parse(fs.readFileSync(path.join(studyDir, 'runs', r.id, 'capacity.json'), 'utf8'));
    const advice = freshAdvice(c);
    html.push(capacityHttpBody(c), advice ? h`<p class="warn"><b>${advice}</b></p>` : '');
    md.push('## Capacity', '', '```', capacityText(c), '```', '', ...(advice ? [`**${advice}**`, ''] : []));
  }
  return {
    html: page('Your service in the four deployments', h`${html.map((x) => h`${x}\n`)}`, machine),
    markdown: `${md.join('\n')}\nMeasured on ${machine.hostname}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.\n`,
  };
}

// A search that found a deployment that did not come back from an overload, when the study
// did not already redeploy per level: the way on, said once for the study.
function freshAdvice(c) {
  if (c.settings?.freshPerLevel) return null;
  const changed = (c.deployments || []).filter((d) => CHANGED.includes(d.bound));
  if (!changed.length) return null;
  return `${changed.map((d) => d.deployment).join(', ')}: the service changed during the capacity search (drift: its state grew, its queue did not drain, or it restarted), so no rate measured after it is a capacity, and the deployments are not ranked on such figures. Run the study again with --fresh-per-level: each level on a fresh deployment (and a fresh database with --with).`;
}

function isDoneRun(studyDir, r) {
  const dir = path.join(studyDir, 'runs', r.id);
  return fs.existsSync(path.join(dir, r.kind === 'capacity' ? 'capacity.json' : 'summary.json'));
}

module.exports = {
  name: 'deployments',
  seed: 'yours',
  title: 'Your service in the four deployments',
  what: "your service (--app, with --endpoints paths or --script) under load / spikes / endurance on the four deployments, side by side, then each one's capacity under --slo",
  flags: [...YOUR_SERVICE_FLAGS, 'scenarios', 'deployments', 'generator', 'rate-scale', 'duration'],
  // Needs --app: with none, the study has nothing to run (said by the command).
  needs: ['app'],
  said,
  afterRun,
  plan,
  render,
  freshAdvice,
};
