'use strict';

const { requestNames } = require('../scenario/model');
const { clock } = require('../terminal/progress');
const { nodeText } = require('../runtime/node-versions');
const { describeCap } = require('../topology/caps');

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
    lines.push(
      `service: ${d.app ? `your service in ${d.app.dir} (${d.app.line})` : "the lab's reference service"}${p.node ? `, on Node ${nodeText(p.node)}` : ''}`,
    );
  // (Each node's cap as resolved: a role's cap on each of its nodes, a node's own over it.)
  const caps = Object.entries(p.caps || {});
  if (caps.length) lines.push(`caps: ${caps.map(([n, c]) => `${n} ${describeCap(c)}`).join('; ')}`);
  lines.push(`generator: ${p.generator}${p.loadNodes ? ` on ${p.loadNodes} load nodes` : ''}`);
  if (p.signal) {
    lines.push(`participants: up to ${p.participants}`);
    for (const st of p.signalPlan.stages) lines.push(`  ${st.name}  ${st.duration} s`);
  } else {
    // (A script whose scenarios are another engine's, a browser's: said, not an empty list.)
    const names = requestNames(p.model);
    const others = (p.model.foreign || []).map((f) => `${f.feature} (${f.where})`);
    lines.push(
      names.length
        ? `requests: ${names.join(', ')}`
        : `requests: none of the lab's to list${others.length ? `; the script's scenarios run on ${[...new Set(others)].join(', ')}, by Artillery` : ''}`,
    );
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
  lines.push(...scriptLines(p.model), ...entryLines(p), ...elasticLines(p), ...profileLines(p));
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

// A script's scenarios, variables, payload and environment as read with its flags (-e,
// --overrides, -p, -v, --dotenv, --scenario-name): what each changed is in these lines.
// (--dotenv's values stay off the screen: names only.)
function scriptLines(model) {
  if (model?.source?.kind !== 'artillery') return [];
  const lines = [];
  const flows = model.flows || [];
  lines.push(
    `script: ${model.source.file}; ${flows.length} scenario(s): ${flows.map((f) => `${f.name ?? 'unnamed'} (weight ${f.weight ?? 1})`).join(', ')}`,
  );
  const vars = Object.keys(model.variables || {});
  if (vars.length) lines.push(`variables: ${vars.join(', ')}`);
  for (const pl of model.payload || [])
    lines.push(
      `payload: ${pl.file} (fields ${(pl.fields || []).join(', ') || '-'}; ${pl.rows?.length ?? 0} row(s), ${pl.order ?? 'random'})`,
    );
  if (model.env) lines.push(`environment of the generator: ${Object.keys(model.env).join(', ')} (from --dotenv)`);
  if (model.source.options?.environment) lines.push(`environment: ${model.source.options.environment} (-e)`);
  return lines;
}

// The entry's protocol (--tls, --http2, a certificate of yours), and what the generator does
// with it (--tls-resume, --streams).
function entryLines(p) {
  const tls = p.deployment?.tls;
  if (!tls) return [];
  const cert = tls.cert
    ? `your certificate ${tls.cert}${tls.ca ? ` (signed by ${tls.ca})` : ''}`
    : "a certificate the lab makes, signed by a CA of the deployment's";
  const lines = [
    `entry: https, TLS${tls.http2 ? ' with HTTP/2 (ALPN h2)' : ''}, ${cert}; the replicas plain HTTP behind it`,
  ];
  const v = p.values;
  const client = [
    v['tls-resume'] === 'off'
      ? 'a full handshake every new connection (--tls-resume off)'
      : "resuming the last handshake's session",
    ...(v.streams ? [`${v.streams} stream(s) in flight a connection (--streams)`] : []),
  ];
  lines.push(`the generator: ${client.join(', ')}`);
  return lines;
}

// The autoscaler with its bounds and rule, the rollout with its time and surge.
function elasticLines(p) {
  const e = p.elastic;
  if (!e) return [];
  const lines = [];
  if (e.autoscale) {
    const a = e.autoscale;
    const r = a.rule;
    lines.push(
      `autoscale: ${a.min} to ${a.max} replicas on ${a.metric} at ${a.target}${a.unit} a replica (Kubernetes' HPA rule: desired = ceil(replicas x metric / target), tolerance ${r.tolerance}, sync every ${r.syncS} s, up window ${r.upWindowS} s, down window ${r.downWindowS} s, up ${policies(r.upPolicies)}, down ${policies(r.downPolicies)}); a removed replica: pre-stop ${a.preStopS} s, grace ${a.graceS} s`,
    );
  }
  if (e.rollout) {
    const r = e.rollout;
    lines.push(
      `rollout: at ${r.atS} s into the load, every replica replaced one at a time (max surge ${r.maxSurge}, max unavailable ${r.maxUnavailable})${r.appNext ? ` by the new version in ${r.appNext}` : ''}; each old one: pre-stop ${r.preStopS} s, grace ${r.graceS} s`,
    );
  }
  return lines;
}
const policies = (list) =>
  (list || []).map((x) => `${x.value}${x.type === 'Percent' ? '%' : ''}/${x.periodS}s`).join(',');

// The profile's window and sampling.
function profileLines(p) {
  const pr = p.profile;
  if (!pr) return [];
  const w = pr.at;
  return [
    `profile: ${w ? `${w.fromS}-${w.toS} s of the load (${w.rule})` : 'its window found when the load is known'}, sampled every ${pr.us} µs; the stores' statements over the same window`,
  ];
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
