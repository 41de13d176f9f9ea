'use strict';

const fs = require('node:fs');
const path = require('node:path');
const loadRun = require('./load-run');
const { compareBody, label } = require('./run-report');
const { characterizeBody } = require('./characterize-html');
const deploymentSvg = require('./deployment-svg');
const { resolveDeployment, COURSE } = require('../topology/deployments');
const { html: h } = require('./html');
const page = require('./page');

// Observations that only restate what was measured: counts, latencies, resource peaks and
// the generator's verdict, deployment by deployment.
function observations(runs) {
  const facts = [];
  const by = (f) => [...runs].sort((a, b) => f(b) - f(a));
  const done = (r) => r.summary.requestsCompleted;
  const ranked = by(done);
  if (ranked.length > 1) {
    facts.push(ranked.map((r) => `${r.summary.deployment.name} ${answeredText(r.summary)}`).join(', ') + '.');
  }
  const withP99 = runs.filter((r) => r.summary.responseTimeMs);
  if (withP99.length > 1) {
    const p = by((r) => -r.summary.responseTimeMs.p99);
    facts.push(
      `p99 response time: ${p.map((r) => `${r.summary.deployment.name} ${r.summary.responseTimeMs.p99} ms`).join(', ')}.`,
    );
  }
  for (const r of runs) {
    const errs = Object.entries(r.summary.errors);
    if (errs.length) facts.push(`${r.summary.deployment.name}: ${errs.map(([k, v]) => `${v} ${k}`).join(', ')}.`);
    if (r.summary.saturation && r.summary.saturation.saturated)
      facts.push(`${r.summary.deployment.name}: ${r.summary.saturation.verdict}.`);
  }
  const cpuTop = runs.map((r) => {
    const top = Object.entries(r.peaks)
      .filter(([n]) => !n.includes('.') && n !== 'generator')
      .sort((a, b) => b[1].cpuPct - a[1].cpuPct)[0];
    return top ? `${r.summary.deployment.name}: ${top[0]} at ${top[1].cpuPct}%` : null;
  });
  if (cpuTop.some(Boolean)) facts.push(`Busiest node (peak CPU, % of one core): ${cpuTop.filter(Boolean).join('; ')}.`);
  return facts;
}

// Requests answered of those sent, and the scenarios (arrivals) that sent them when a scenario
// is a flow of several: "completed 300 of 100 requests" once compared answers with scenarios.
function answeredText(s) {
  const sent = s.requestsSent ?? s.scenariosLaunched;
  const flows = s.scenariosLaunched !== undefined && s.scenariosLaunched !== sent;
  return `completed ${s.requestsCompleted} of ${sent} requests${flows ? ` (from ${s.scenariosLaunched} scenarios)` : ''}`;
}

// studyDir/runs/<id>/ for every run of the plan; returns { html, markdown }.
function renderStudy({ studyDir, plan, machine, scale, failures = {} }) {
  const groups = new Map();
  const characterizations = [];
  const missing = [];
  for (const run of plan) {
    const dir = path.join(studyDir, 'runs', run.id);
    if (run.kind === 'characterize') {
      const file = path.join(dir, 'result.json');
      if (fs.existsSync(file)) characterizations.push(JSON.parse(fs.readFileSync(file, 'utf8')));
      else missing.push(run.id);
      continue;
    }
    if (!fs.existsSync(path.join(dir, 'summary.json'))) {
      missing.push(run.id);
      continue;
    }
    const key = `${run.endpoint} ${run.scenario}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(loadRun(dir));
  }

  const html = [];
  const md = [];
  html.push(h`<h1>The course study, reproduced</h1>`);
  html.push(
    h`<p>${plan.length} planned runs${scale !== 1 ? h`, durations scaled by ${scale}` : ''}; ${missing.length ? h`not done: ${missing.join(', ')}` : 'all done'}.</p>`,
  );
  md.push(
    '# The course study, reproduced',
    '',
    `${plan.length} planned runs${scale !== 1 ? `, durations scaled by ${scale}` : ''}; ${missing.length ? `not done: ${missing.join(', ')}` : 'all done'}.`,
    '',
  );
  for (const [id, reason] of Object.entries(failures)) {
    html.push(h`<p class="warn">${id} failed: ${reason}</p>`);
    md.push(`- **${id} failed**: ${reason}`);
  }
  html.push(h`<h2>Deployments</h2>`);
  md.push('## Deployments', '');
  for (const p of COURSE) {
    html.push(h`<h3>${p.name}</h3>${deploymentSvg(resolveDeployment(p.name))}`);
    md.push(`- **${p.name}**: ${p.replicas} replica(s) x ${p.workers} worker(s), ${p.description}`);
  }
  for (const [key, runs] of groups) {
    html.push(h`<h2>${key}</h2>`);
    md.push('', `## ${key}`, '');
    const facts = observations(runs);
    html.push(h`<ul class="facts">${facts.map((f) => h`<li>${f}</li>`)}</ul>`);
    md.push(...facts.map((f) => `- ${f}`), '');
    html.push(compareBody(runs));
    md.push(
      '| run | launched | completed | failed | mean /s | median | p95 | p99 | max |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of runs) {
      const s = r.summary;
      const t = s.responseTimeMs || {};
      md.push(
        `| ${label(r)} | ${s.scenariosLaunched} | ${s.requestsCompleted} | ${s.scenariosFailed} | ${s.meanResponseRate ?? '-'} | ${t.median ?? '-'} | ${t.p95 ?? '-'} | ${t.p99 ?? '-'} | ${t.max ?? '-'} |`,
      );
    }
    html.push(
      h`<p class="note">Each run's own report: ${runs.map((r, i) => h`${i ? ', ' : ''}<a href="runs/${encodeURIComponent(r.name)}/report.html">${r.name}</a>`)}</p>`,
    );
  }
  html.push(h`<h2>Section 2: characterization of the black boxes</h2>`);
  md.push('', '## Section 2: characterization of the black boxes', '');
  for (const c of characterizations) {
    html.push(characterizeBody({ ...c, verdict: { ...c.verdict, levels: c.levels } }, 'h3'));
    md.push(`- **${c.target}**: ${c.verdict.explanation}`);
  }
  return {
    html: page('The course study, reproduced', h`${html.map((x) => h`${x}\n`)}`, machine),
    markdown: `${md.join('\n')}\n\nMeasured on ${machine.hostname}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.\n`,
  };
}

module.exports = {
  answeredText,
  renderStudy,
  observations,
};
