'use strict';

const { requestNames } = require('../scenario/model');
const { clock } = require('../terminal/progress');

// `npm run scenario -- ... --plan`: what a run would do, said before anything starts. Every
// check of the command line has run by then (its words, flags, script and --app), so a plan
// that prints is a command that starts.
function planText(p) {
  const d = p.deployment;
  const lines = [];
  const where = p.target
    ? `against ${p.target} (already up: nothing deployed)`
    : `on ${d.label}: ${d.replicas} replica(s) x ${d.workers} worker(s)${d.edges ? `, ${d.edges} edge(s)` : ''} behind ${d.balancer.kind}, engine ${p.runtime}`;
  lines.push(`${p.endpoint} ${p.scenario} ${where}`);
  if (!p.target)
    lines.push(`service: ${d.app ? `your service in ${d.app.dir} (${d.app.line})` : "the lab's reference service"}`);
  lines.push(`generator: ${p.generator}${p.loadNodes ? ` on ${p.loadNodes} load nodes` : ''}`);
  if (p.signal) {
    lines.push(`participants: up to ${p.participants}`);
    for (const st of p.signalPlan.stages) lines.push(`  ${st.name}  ${st.duration} s`);
  } else {
    lines.push(`requests: ${requestNames(p.model).join(', ')}`);
    if (p.closed) {
      const v = p.values;
      const length = v.requests ? `${v.requests} requests` : `${v.duration ?? total(p.model.phases)} s`;
      lines.push(`closed loop: ${v.connections ?? 10} connection(s), for ${length}`);
    } else {
      lines.push('phases:');
      for (const ph of p.model.phases) lines.push(`  ${ph.name}  ${ph.duration} s  ${rateOf(ph)}`);
    }
  }
  if (p.thresholds.length) lines.push(`thresholds: ${p.thresholds.map((t) => t.text).join(', ')}`);
  for (const n of scriptNotes(p.model, p.generator)) lines.push(`note: ${n}`);
  const loadS = p.signal
    ? total(p.signalPlan.stages)
    : p.closed && p.values.requests
      ? null
      : p.closed && p.values.duration
        ? p.values.duration
        : total(p.model.phases);
  lines.push(
    loadS === null
      ? 'length: until the requests are answered, plus deploying'
      : `length: ${clock(loadS)} of load, plus deploying and the drain`,
  );
  lines.push('nothing was started (--plan)');
  return lines.join('\n');
}

// What a run of a script says before it starts: where the lab differs from Artillery on
// purpose, and what Artillery gets untouched (fields the lab does not know).
function scriptNotes(model, generator) {
  if (!model || model.source?.kind !== 'artillery') return [];
  const out = (model.notes || [])
    .filter((n) => !(n.engines && generator === 'artillery'))
    .map((n) => `${n.where}: ${n.note}`);
  if (generator === 'artillery') {
    for (const u of model.unknown || [])
      out.push(`${u.where} (line ${u.line}): not a field the lab knows, passed to Artillery untouched`);
  }
  return out;
}

const total = (phases) => Math.round(phases.reduce((a, ph) => a + (ph.duration || 0), 0));

function rateOf(ph) {
  if (ph.pause) return 'a pause';
  if (ph.arrivalCount !== undefined) return `${ph.arrivalCount} arrivals spread over it`;
  if (ph.rampTo !== undefined) return `${ph.arrivalRate ?? 0} -> ${ph.rampTo} arrivals/s`;
  return `${ph.arrivalRate} arrivals/s`;
}

module.exports = { planText, scriptNotes };
