'use strict';

const { html, table } = require('./html');
const { lineChart } = require('./chart');

// The section of a run whose replicas changed under load (--autoscale, --rollout-at): the
// replicas over time against the load and what it met, the autoscaler's every decision with
// its inputs, the spikes and what they cost, and the rollout's replacements and failures.
function elasticSection(run) {
  const s = run.summary;
  if (!s.autoscale && !s.rollout) return '';
  return html`<h2>Replicas under load</h2>
    ${replicasCharts(run)} ${autoscaleBlock(s.autoscale)} ${rolloutBlock(s.rollout)}`;
}

// The replicas' curve (those there and those in the entry), against arrivals and failures,
// and against p99: on the run's own time axis.
function replicasCharts(run) {
  const s = run.summary;
  const timeline = s.autoscale?.timeline ?? null;
  const replicas = timeline ? timeline.map((x) => [x.t, x.replicas]) : [];
  const ready = timeline ? timeline.map((x) => [x.t, x.ready]) : [];
  const rollout = s.rollout ? [{ from: s.rollout.atS, to: s.rollout.atS + s.rollout.seconds, label: 'rollout' }] : [];
  const axis = {
    xLabel: 'time since the first phase',
    time: true,
    markers: run.phases.map((p, i) => ({ x: p.x, label: `${i + 1}` })),
    bands: [...(run.failing || []), ...rollout],
    xMin: 0,
  };
  const right = timeline
    ? [
        { name: 'replicas', points: replicas, axis: 'right' },
        { name: 'in the entry', points: ready, axis: 'right', dashed: true },
      ]
    : [];
  return html`${lineChart(
    [{ name: 'launched /s', points: run.series.launched }, { name: 'failed /s', points: run.series.errored }, ...right],
    { ...axis, title: 'Replicas against arrivals and failures', yLabel: 'per second', y2Label: 'replicas' },
  )}
  ${lineChart([{ name: 'p99 ms', points: run.series.rtP99 || [] }, ...right], {
    ...axis,
    title: 'Replicas against the response time (p99 of each second)',
    yLabel: 'ms',
    y2Label: 'replicas',
  })}`;
}

function autoscaleBlock(a) {
  if (!a) return '';
  const u = a.unit;
  const rule = a.rule;
  const policies = (ps) => ps.map((p) => `${p.value}${p.type === 'Percent' ? '%' : ''}/${p.periodS}s`).join(' or ');
  return html`<h3>Autoscaling (Kubernetes' HPA rule)</h3>
    <p>
      ${a.min} to ${a.max} replicas on ${a.metric}, target ${a.target}${u} per replica; a ${rule.syncS} s sync, a
      ${Math.round(rule.tolerance * 100)}% tolerance, windows of ${rule.upWindowS} s up and ${rule.downWindowS} s down,
      up by ${policies(rule.upPolicies)}, down by ${policies(rule.downPolicies)}. They used ${a.replicaSeconds}
      replica-seconds (${a.fixed.min} at ${a.min} fixed, ${a.fixed.max} at ${a.max} fixed).
    </p>
    ${
      a.spikes.length
        ? table(
            ['spike at', 'rate', 'absorbed after', 'replicas before', 'most replicas', 'failed meanwhile'],
            a.spikes.map((sp) => [
              `${sp.startS} s`,
              `${sp.fromRate} → ${sp.toRate}/s`,
              sp.recoveredS === null ? 'not within the phase' : `${sp.recoveredS} s`,
              sp.replicasBefore ?? '-',
              sp.replicasMost,
              sp.failed,
            ]),
            'spikes',
          )
        : ''
    }
    <p class="note">
      Absorbed: from the spike's start to the first second after which p99 stayed under ${a.sloMs} ms with no failed
      request for 5 s. Each decision below has its inputs: the metric per replica over the last sync (none: not in the
      entry yet, counted as Kubernetes counts a pod not ready), their average, the recommendation, what the windows and
      policies made of it.
    </p>
    ${table(
      ['t (s)', `${a.metric} per replica`, 'average', 'replicas', 'recommended', 'desired', 'held by'],
      a.decisions.map((d) => [
        d.t,
        Object.entries(d.perReplica)
          .map(([n, v]) => `${n} ${v ?? 'none'}`)
          .join(', '),
        d.average ?? '-',
        d.current,
        d.recommended,
        d.desired,
        d.heldBy ?? d.why ?? '',
      ]),
      'decisions',
    )}
    ${a.errors?.length ? a.errors.map((e) => html`<p class="warn">${e.what} failed: ${e.error}</p>`) : ''}`;
}

function rolloutBlock(r) {
  if (!r) return '';
  if (r.replaced === undefined) return html`<h3>Rollout</h3><p class="warn">${r.error}</p>`;
  const causes = [
    ...Object.entries(r.causes.dropped).map(([n, c]) => `${c} dropped by ${n} at its SIGTERM`),
    ...(r.causes.gateway ? [`${r.causes.gateway} answered 502/504 by the entry`] : []),
    ...(r.causes.refused ? [`${r.causes.refused} refused`] : []),
    ...(r.causes.reset ? [`${r.causes.reset} reset`] : []),
    ...Object.entries(r.causes.other).map(([c, n]) => `${n} ${c}`),
  ];
  return html`<h3>Rollout</h3>
    <p>
      At ${r.atS} s, ${r.replaced.length} replica(s) replaced in ${r.seconds} s (at most ${r.surge} extra, at most
      ${r.unavailable} missing): ${r.failed ? html`<strong>${r.failed} request(s) failed</strong> (${causes.join('; ')})` : 'no request failed'}.
    </p>
    ${r.error ? html`<p class="warn">${r.error}</p>` : ''}
    ${table(
      ['old', 'new', 'drained in', 'connections left', 'stopped', 'after SIGTERM'],
      r.replaced.map((x) => [
        x.old,
        x.new ?? '-',
        x.drainedS === undefined ? '-' : `${x.drainedS} s`,
        x.connectionsLeft ?? '-',
        x.exit ?? '-',
        x.stopS === undefined ? '-' : `${x.stopS} s`,
      ]),
      'rollout',
    )}`;
}

module.exports = { elasticSection };
