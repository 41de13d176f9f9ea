'use strict';

const { html, table } = require('./html');
const page = require('./page');
const { lineChart } = require('./chart');
const { candidateText } = require('./choice-text');

// The page of a choice (npm run choose): the sentence, the candidates' curves against the
// target line, the candidates and their costs, the check, what sets the knee, the files
// written. A pure function of choice.json.

function curvesChart(r) {
  const series = [];
  let top = 1;
  // (A choice stopped before its candidates were ranked still shows what its sweeps measured.)
  const shapes = r.candidates.length
    ? r.candidates
    : (r.sweeps || []).map((s) => ({ label: s.id, points: s.points || [], curve: null }));
  for (const c of shapes) {
    const good = c.points.filter((p) => !p.leftOut && p.maxRate !== null);
    const out = c.points.filter((p) => p.leftOut && p.maxRate !== null);
    if (good.length)
      series.push({ name: `${c.label}: measured`, points: good.map((p) => [p.replicas, p.maxRate]), scatter: true });
    // (Held, but not a knee: the generator, the machine or --max-rate stopped the search.)
    if (out.length)
      series.push({
        name: `${c.label}: held at least (left out of the fit)`,
        points: out.map((p) => [p.replicas, p.maxRate]),
        scatter: true,
      });
    // (A count whose search was cut short: what one of its levels held, not its capacity.)
    const cut = c.points.filter((p) => p.maxRate === null && p.heldAtLeast);
    if (cut.length)
      series.push({
        name: `${c.label}: held at least (search cut short)`,
        points: cut.map((p) => [p.replicas, p.heldAtLeast]),
        scatter: true,
      });
    // (A count stopped at a break at or below the rate wanted: that break, above what it holds.)
    const below = c.points.filter((p) => p.maxRate === null && p.below != null);
    if (below.length)
      series.push({
        name: `${c.label}: broke at, under the rate wanted (holds less; not verified)`,
        points: below.map((p) => [p.replicas, p.below]),
        scatter: true,
      });
    if (c.curve) series.push({ name: `${c.label}: the law, fitted`, points: c.curve.map((x) => [x.replicas, x.rate]) });
    top = Math.max(top, ...c.points.map((p) => p.replicas), ...(c.curve || []).map((x) => x.replicas));
  }
  series.push(
    {
      name: `target ${r.rate}/s`,
      points: [
        [1, r.rate],
        [top, r.rate],
      ],
      dashed: true,
    },
    {
      name: `with ${r.headroomPct}% headroom`,
      points: [
        [1, r.want],
        [top, r.want],
      ],
      dashed: true,
    },
  );
  if (r.choice) series.push({ name: 'the choice', points: [[r.choice.replicas, r.choice.holds]], scatter: true });
  const markers = r.choice ? [{ x: r.choice.replicas, label: `${r.choice.label} x${r.choice.replicas}` }] : [];
  return lineChart(series, {
    title: `What each shape holds with N replicas, each held to ${sizesText(r)} (arrivals a second under the SLO)`,
    xLabel: 'replicas',
    yLabel: 'arrivals a second',
    xMin: 0,
    integerX: true,
    markers,
  });
}

// (With prices, a column of each candidate's cost a month.)
function candidateRows(r) {
  return r.candidates.map((c) => [
    c.rank ?? '-',
    c.label,
    c.replicas ?? '-',
    c.cores ?? '-',
    c.memoryMiB ?? '-',
    ...(r.price ? [c.cost ? (c.cost.perMonth?.toFixed(2) ?? `unknown: ${c.cost.missing}`) : '-'] : []),
    c.replicas === null
      ? c.refused
      : c.prediction
        ? `${c.prediction.rate}/s${c.prediction.low !== null ? ` (95%: ${c.prediction.low} to ${c.prediction.high})` : ''}`
        : '-',
    c.measured ? `${c.measured.atLeast ? 'at least ' : ''}${c.measured.rate}/s` : '-',
    c.fit
      ? `σ ${c.fit.sigma}, κ ${c.fit.kappa}, λ ${c.fit.lambda}${c.fit.peak ? `, peak ${c.fit.peak.replicas} replicas` : ''}`
      : 'no fit',
  ]);
}

// The replica's CPU share, or the sizes compared (choose --sizes): "0.25 of a core", "0.25, 0.5
// or 1 of a core".
const sizesText = (r) =>
  r.sizes?.length > 1
    ? `${r.sizes.slice(0, -1).join(', ')} or ${r.sizes.at(-1)} of a core`
    : `${r.sizes?.[0] ?? r.cpuPerReplica} of a core`;

function checkRows(r) {
  return (r.checks || []).map((k) => [`${k.label} x${k.replicas}`, k.held ? 'held' : 'not held', k.text, k.dir]);
}

// How wide each fitted candidate's interval is, said in words: with four counts the fit keeps one
// degree of freedom (t = 12.7), and the interval is wide even when the points sit on the curve.
function intervalNote(r) {
  const fitted = r.candidates.filter((c) => c.fit && c.prediction && c.prediction.low !== null);
  if (!fitted.length) return '';
  return html`<p class="note">
    ${fitted.map(
      (c) =>
        html`${c.label}: the law fitted to ${c.fit.dof + 3} counts keeps ${c.fit.dof} degree(s) of freedom; at
          ${c.replicas} replica(s) its 95% interval for a new measurement spans ${c.prediction.low} to
          ${c.prediction.high}/s, ${Math.round(((c.prediction.high - c.prediction.low) / Math.max(c.prediction.rate, 1e-9)) * 100)}%
          of the ${c.prediction.rate}/s predicted${c.fit.dof <= 1 ? ': wide; more counts (--replicas) narrow it' : ''}. `,
    )}
  </p>`;
}

function choiceBody(r) {
  return html`<h1>The deployment to choose for ${r.what}</h1>
    <p class="headline">${r.text}</p>
    <p class="note">
      Status: ${r.status}. For ${r.rate}/s under ${r.slos.join(' and ')}, with ${r.headroomPct}% headroom (a count must be
      predicted to hold ${r.want}/s). Each replica is held to ${sizesText(r)}${r.sizes ? ' (--sizes, each swept on its own)' : ''}: the figures hold for a
      replica of that CPU share and this version of the service, measured on this machine.
    </p>
    ${cpusApart(r)}
    ${curvesChart(r)}
    ${screensSection(r)}
    <h2>Candidates</h2>
    ${table(
      [
        'rank',
        'shape',
        'replicas',
        'cores',
        'MiB a replica',
        ...(r.price ? [`a month (cpu ${r.price.cpu}/core-hour, memory ${r.price.memory}/GiB-hour)`] : []),
        'predicted',
        'measured',
        'fit',
      ],
      candidateRows(r),
    )}
    <h2>The check</h2>
    ${
      (r.checks || []).length
        ? table(['candidate', 'verdict', 'what was seen', 'its run'], checkRows(r))
        : html`<p>No candidate was checked${r.choice ? ' yet' : ''}.</p>`
    }
    ${intervalNote(r)}
    ${r.why ? html`<h2>What sets its knee</h2><p>${r.why.text}</p>` : ''}
    ${
      r.hpa
        ? html`<h2>The autoscaler it writes</h2>
            <p>
              A HorizontalPodAutoscaler from ${r.hpa.minReplicas} to ${r.hpa.maxReplicas} replica(s), scaling on CPU at
              ${r.hpa.target}% of each replica's ${r.choice?.cpuPerReplica ?? r.cpuPerReplica} of a
              core${Number.isFinite(r.hpa.downWindowS) ? `, scaling down after ${r.hpa.downWindowS} s of lower recommendations` : ''}
              (kubernetes/deployment.yml).
            </p>
            ${r.autoscaleCheck ? html`<p>Run under the lab's autoscaler: ${r.autoscaleCheck.text}.</p>` : ''}`
        : ''
    }
    ${
      (r.files || []).length
        ? html`<h2>Written for your platform</h2>
          <ul>
            ${r.files.map((f) => html`<li><code>${f}</code></li>`)}
          </ul>`
        : ''
    }
    <h2>How</h2>
    ${r.screens ? screenedHow(r) : howSwept(r)}
    <pre>${r.candidates.map(candidateText).join('\n')}</pre>`;
}

// The screens and sweeps measured while this machine's CPUs ran apart (lab/measure/cpu-speeds.js):
// their figures can move by as much, said before them.
function cpusApart(r) {
  const apart = [...(r.screens || []).map((x) => ['screen', x]), ...(r.sweeps || []).map((x) => ['sweep', x])].filter(
    ([, x]) => x.cpuSpeedsText,
  );
  return apart.map(
    ([kind, x]) => html`<p class="warn cpu-speeds">While the ${kind} ${x.id} measured, ${x.cpuSpeedsText}.</p>`,
  );
}

// Each unit's screen (choose at its defaults): what its one replica held, where it broke, the
// bound that gives, and whether it was swept.
function screensSection(r) {
  if (!r.screens?.length) return '';
  const swept = new Set((r.sweeps || []).map((x) => x.id));
  const rows = r.screens.map((x) => {
    const pt = (x.points || []).find((q) => q.replicas === 1);
    const broke = pt?.highestBroke ?? pt?.broke;
    return [
      x.id,
      pt && pt.maxRate !== null ? `${pt.maxRate}/s` : '-',
      broke != null ? `${broke}/s` : '-',
      x.bound ? (x.bound.refused ?? `${x.bound.replicas} replica(s), ${x.bound.cores} cores`) : (x.failed ?? '-'),
      swept.has(x.id) ? 'swept' : 'not swept',
    ];
  });
  return html`<h2>Screens: one replica of each</h2>
    <p class="note">
      Each unit's one replica searched briefly: replicas scale at best linearly, so the highest rate it broke at (with
      25% for a screen's noise) bounds from below the replicas it needs. Units were swept
      in the order of their bounds, until no unit left could be cheaper than the cheapest count measured to hold
      ${r.want}/s. A bound orders the units; it is never a capacity.
    </p>
    ${table(['unit', 'held (1 replica)', 'broke at (its highest)', 'at least', 'swept'], rows)}`;
}

const screenedHow = (r) => html`<p class="note">
  Each unit (a shape at a replica size) was screened at one replica (npm run capacity -- --replicas 1, short levels, one
  verification), and the units swept in the order of the bounds their screens give, each at the count its bound names and
  the one above it (verified runs, every count held for as long). The fewest replicas of a swept unit measured to hold
  ${r.want}/s is its candidate; candidates are ranked by the cores they are given${r.price ? ' (by their cost a month)' : ''},
  then memory. The first is deployed and held at the rate and at the rate with its headroom; docs/choose.md says the method
  and its limits.
</p>`;

const howSwept = (r) => html`<p class="note">
      Each shape's capacity was searched at
      ${r.counts.join(', ')}
      replicas${r.countsFor ? `, then where ${r.countsFor}/s was expected to land and the one above it` : ''} (npm run capacity -- --replicas, verified
      runs), the Universal Scalability Law fitted to them, and the fewest replicas predicted to hold the rate with its
      headroom taken (a count measured to hold it is taken as measured). Candidates are ranked by the cores they are
      given, then memory. The first is deployed and held at the rate; docs/choose.md says the method and its limits.
    </p>`;

const choicePage = (r) => page(`the deployment to choose for ${r.what}`, choiceBody(r), r.machine);

module.exports = { choicePage, choiceBody };
