'use strict';

const path = require('node:path');
const { html: h, table: htmlTable, trusted } = require('../report/html');
const page = require('../report/page');
const { merge, buckets } = require('../measure/histogram');
const { maybeJson, readJsonLines } = require('../results/files');
const { SCRIPT_FLAG_NAMES } = require('../scenario/script-flags');

// What every study's report is made of: sections with computed facts, tables (HTML and
// Markdown from the same rows) and optional charts; a header saying what ran and what did
// not; a list of what differs from the seed's set-up. A study builds sections from its runs'
// files and nothing else.

// A number for a table: `digits` decimals, or "-" when there is none.
function num(v, digits = 0) {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  return Number(v).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

// A ratio of two measured numbers as "0.42x", or "-" when either is missing.
function ratio(a, b, digits = 2) {
  if (!(typeof a === 'number' && typeof b === 'number' && b > 0)) return '-';
  return `${(a / b).toFixed(digits)}x`;
}

// A run's JSON file, or null (not run, failed): lab/results/files.js.
const readJson = maybeJson;

// The summary of a scenario run the study made, or null when it has none (not run, failed).
function summaryOf(studyDir, id) {
  return readJson(path.join(studyDir, 'runs', id, 'summary.json'));
}

// The latency distribution of a scenario run the study made, as [ms, count] buckets merged
// exactly from its seconds' histograms (lab/measure/histogram.js), or null.
function latencyBuckets(studyDir, id) {
  // (A run not made has no records: no lines, so null below.)
  const hists = readJsonLines(path.join(studyDir, 'runs', id, 'records.jsonl'))
    .filter((r) => r.type === 'second' && r.hist?.latency)
    .map((r) => r.hist.latency);
  return hists.length ? buckets(merge(hists)) : null;
}

// The id of repetition k (1-based) of a run: the first keeps the run's own name, so a study
// folder made before repetitions goes on from its runs.
const repId = (id, k) => (k === 1 ? id : `${id}-r${k}`);

// The range of repeated figures for a fact, " (runs: 0.24x to 0.33x)", or nothing for one run.
// sp: lab/analysis/findings.js spread.
const runsRange = (sp, digits = 2, unit = 'x') =>
  sp.n > 1 ? ` (runs: ${num(sp.min, digits)}${unit} to ${num(sp.max, digits)}${unit})` : '';

// A range of percentages, "87-88%", or "88%" when its ends round alike.
const pctRange = (lo, hi) => (num(lo, 0) === num(hi, 0) ? `${num(hi, 0)}%` : `${num(lo, 0)}-${num(hi, 0)}%`);

// How busy the machine was (lab/analysis/findings.js machineBusy), in words for a fact:
// { machine: "87-88%", generator: ", the generator alone 88% of a core" or "" }.
function busyWords(b) {
  return {
    machine: pctRange(b.share.min * 100, b.share.max * 100),
    generator: b.generator.n ? `, the generator alone ${pctRange(b.generator.min, b.generator.max)} of a core` : '',
  };
}

const mdCell = (v) => String(v ?? '-').replace(/\|/g, '\\|');
function mdTable(head, rows) {
  return [
    `| ${head.map(mdCell).join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
  ].join('\n');
}

// A section: { title, facts: [text], tables: [{ caption, head, rows, note }], charts: [svg] }.
// notes (optional, from sharedNotes): a note several tables of the report share is written
// once, under the first of them, and the others refer to it.
function renderSection(s, notes = new Map()) {
  const html = [h`<h2>${s.title}</h2>`];
  const md = [`## ${s.title}`, ''];
  if (s.facts && s.facts.length) {
    html.push(h`<ul class="facts">${s.facts.map((f) => h`<li>${f}</li>`)}</ul>`);
    md.push(...s.facts.map((f) => `- ${f}`), '');
  }
  for (const svg of s.charts || []) html.push(trusted(svg));
  for (const t of s.tables || []) {
    if (t.caption) {
      html.push(h`<h3>${t.caption}</h3>`);
      md.push(`### ${t.caption}`, '');
    }
    html.push(htmlTable(t.head, t.rows));
    md.push(mdTable(t.head, t.rows), '');
    if (!t.note) continue;
    const shared = notes.get(t.note);
    if (!shared) {
      html.push(h`<p class="note">${t.note}</p>`);
      md.push(`_${t.note}_`, '');
    } else if (!shared.written) {
      shared.written = true;
      html.push(
        h`<p class="note" id="note-${shared.n}">Note ${shared.n}, for this table and the ones like it below: ${t.note}</p>`,
      );
      md.push(`_Note ${shared.n}, for this table and the ones like it below: ${t.note}_`, '');
    } else {
      html.push(h`<p class="note">As <a href="#note-${shared.n}">note ${shared.n}</a> says, above.</p>`);
      md.push(`_As note ${shared.n} says, above._`, '');
    }
  }
  return { html, md };
}

// The notes more than one table of the sections carries: text -> { n }, numbered in order.
function sharedNotes(sections) {
  const count = new Map();
  for (const t of sections.flatMap((s) => s.tables || [])) if (t.note) count.set(t.note, (count.get(t.note) || 0) + 1);
  const out = new Map();
  for (const [text, k] of count) if (k > 1) out.set(text, { n: out.size + 1, written: false });
  return out;
}

// [[what, why], ...] -> Map why -> [what, ...], in first-seen order: things that share a
// reason are named together, once.
function byReason(pairs) {
  const out = new Map();
  for (const [what, why] of pairs) out.set(why, [...(out.get(why) || []), what]);
  return out;
}

// The whole report. study: the study's row (title, seed, differs); done/missing: run ids;
// failures: { id: why }.
function renderReport({ study, sections, plan, missing, failures, machine, scale, studyDir = null }) {
  const html = [h`<h1>${study.title}</h1>`];
  const md = [`# ${study.title}`, ''];
  // (A study of the lab's own question has no seed: no published figures to stand beside.)
  const seed = study.seed
    ? `Seed ${study.seed} (its published figures, as this report uses them: lab/studies/${study.name}.js). `
    : `No seed: the lab's own question (lab/studies/${study.name}.js). `;
  const head = `${seed}${plan.length} planned runs${
    scale !== 1 ? `, scaled by ${scale} (a quick version: compare shapes, not sizes)` : ''
  }; ${missing.length ? `not done: ${missing.join(', ')}` : 'all done'}.`;
  html.push(h`<p>${head}</p>`);
  md.push(head, '');
  // Runs that failed for one same reason (a deployment the machine cannot make) are named
  // together, once.
  for (const [why, ids] of byReason(Object.entries(failures))) {
    html.push(h`<p class="warn">${ids.join(', ')}: ${why}</p>`);
    md.push(`- **${ids.join(', ')}**: ${why}`);
  }
  if (Object.keys(failures).length) md.push('');
  // Runs on the lab's emulated VM cluster say so here too, as each of their summaries does.
  const emulated = emulatedNote(studyDir, plan);
  if (emulated) {
    html.push(h`<p class="warn">${emulated}</p>`);
    md.push(`**${emulated}**`, '');
  }
  if (study.differs?.length) {
    const title = study.seed ? "What differs from the seed's set-up" : 'How it is set up';
    html.push(h`<h2>${title}</h2><ul>${study.differs.map((d) => h`<li>${d}</li>`)}</ul>`);
    md.push(`## ${title}`, '', ...study.differs.map((d) => `- ${d}`), '');
  }
  const notes = sharedNotes(sections);
  for (const s of sections) {
    const r = renderSection(s, notes);
    html.push(...r.html);
    md.push(...r.md);
  }
  return {
    html: page(study.title, h`${html.map((x) => h`${x}\n`)}`, machine),
    markdown: `${md.join('\n')}\nMeasured on ${machine.hostname}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.\n`,
  };
}

// The emulation note of the study's runs, when any ran on emulated nodes: how many, and
// what it means for their timings.
function emulatedNote(studyDir, plan) {
  if (!studyDir) return null;
  const notes = plan
    .map((r) => readJson(path.join(studyDir, 'runs', r.id, 'summary.json'))?.environment?.emulated)
    .filter(Boolean);
  if (!notes.length) return null;
  return `${notes.length} of ${plan.length} runs ran on the lab's VM cluster under emulation: ${notes[0]}.`;
}

// A study's pages (study.html, study.md) from its folder alone: the course keeps its own
// renderer, every other study is sections in the common frame.
function studyReport(study, { studyDir, plan, missing, failures, machine, scale }) {
  if (study.render) return study.render({ studyDir, plan, machine, scale, failures });
  const sections = study.sections({ studyDir, plan, scale, failures });
  return renderReport({ study, sections, plan, missing, failures, machine, scale, studyDir });
}

// The flags of a study of your service (deployments, scaling): the service, its stores and
// what loads it.
const YOUR_SERVICE_FLAGS = Object.freeze([
  'app',
  'app-cmd',
  'health',
  'with',
  'keep-data',
  'app-setup',
  'db-max-connections',
  'app-setup-timeout',
  'app-start-timeout',
  'fresh-per-level',
  'max-rate',
  'profile',
  'profile-interval',
  'tls',
  'http2',
  'script',
  ...SCRIPT_FLAG_NAMES,
  'slo',
  'endpoints',
]);

module.exports = {
  YOUR_SERVICE_FLAGS,
  pctRange,
  busyWords,
  num,
  ratio,
  readJson,
  summaryOf,
  latencyBuckets,
  repId,
  runsRange,
  mdTable,
  byReason,
  renderSection,
  renderReport,
  studyReport,
};
