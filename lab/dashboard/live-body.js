'use strict';

const { html } = require('../report/html');
const { runBody } = require('../report/run-report');
const { phaseRates } = require('../../artillery/phases');

// Arrivals due in the first `s` seconds of an open loop's phases (what "asked so far" is).
function askedBy(phases, s) {
  let t = 0;
  let n = 0;
  for (const ph of phases) {
    const d = Math.min(ph.duration, Math.max(0, s - t));
    const { from, to } = phaseRates(ph);
    // Over the first d seconds of a linear ramp from `from` to `to`.
    n += from * d + ((to - from) * d * d) / (2 * ph.duration || 1);
    t += ph.duration;
  }
  return Math.round(n);
}

// The top of the live page: where the run is, its counters (also as data- attributes, for
// scripts and the browser test), then the report's own body as it stands.
function liveBody(run, { elapsedS, totalS, phases, closed, intervalMs, dashboardCpu }) {
  const s = run.summary;
  const errors = Object.values(s.errors || {}).reduce((a, b) => a + b, 0);
  const last = run.series.pending[run.series.pending.length - 1];
  const pending = last ? last[1] : 0;
  const asked = closed ? null : askedBy(phases, elapsedS);
  const codes = Object.entries(s.codes || {})
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const errs = Object.entries(s.errors || {})
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  // Replicas that change under load (--autoscale): how many there are now.
  const replicas = s.autoscale?.timeline.at(-1)?.replicas ?? null;
  return html`<h2>Live: second ${Math.floor(elapsedS)} of ${totalS}</h2>
    <p
      id="counters"
      data-launched="${s.scenariosLaunched}"
      data-completed="${s.requestsCompleted}"
      data-errors="${errors}"
      data-pending="${pending}"
    >
      ${closed ? html`sent <b>${s.scenariosLaunched}</b>` : html`launched <b>${s.scenariosLaunched}</b> of ${asked} asked so far`},
      completed <b>${s.requestsCompleted}</b>, errors <b>${errors}</b>${errs ? html` (${errs})` : ''}, pending
      <b>${pending}</b>${codes ? html`; codes ${codes}` : ''}${replicas === null ? '' : html`; replicas <b id="replicas" data-replicas="${replicas}">${replicas}</b>`}.
    </p>
    <p class="note">
      Refreshed every ${Math.round(intervalMs / 1000)} s; the dashboard has used ${dashboardCpu}% of one core so far.
      Figures are those of the report, over the run so far.
    </p>
    ${runBody(run)}`;
}

module.exports = { liveBody, askedBy };
