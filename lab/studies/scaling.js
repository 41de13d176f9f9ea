'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { readScript } = require('../scenario/from-artillery');
const { requestNames } = require('../scenario/model');
const { parseSlo, assertSloNames } = require('../capacity/slo');
const { scalingText } = require('../report/scaling-text');
const { lineChart } = require('../report/chart');
const { html: h, table } = require('../report/html');
const page = require('../report/page');
const { readJson, YOUR_SERVICE_FLAGS } = require('./kit');
const { serviceValues, profileValues, scriptValues, searchValues } = require('./passed');
const { labError } = require('../../common/errors');

// Which balancer stops scaling first: your service's capacity at 1 to 4 replicas (npm run
// capacity --replicas, each replica capped at CAP of a core so that four fit this machine's
// cores with the balancer and the generator), behind each balancer kind, the Universal
// Scalability Law fitted to each sweep (lab/capacity/usl.js), their curves together.
const KINDS = ['nginx', 'nginx-l4', 'haproxy', 'node'];
const COUNTS = [1, 2, 3, 4];
const CAP = 'replica=15%';
// One count's search at the quick settings below, deploy included (measured here: ~45 s).
const COUNT_S = 45;

const idOf = (kind) => `sweep-${kind}`;

function plan(o) {
  if (!o.app) return [];
  const kinds = o.balancers ?? KINDS;
  const source = o.script ? [] : [o.paths?.[0] ?? '/'];
  if (o.paths && o.paths.length > 1)
    throw labError('LAB_ERR_USAGE', 'the scaling study sweeps one path: give one with --endpoints, or a --script');
  if (o.slos?.length) {
    const names = o.script ? requestNames(readScript(o.script, o.scriptOptions ?? {})) : [`GET ${source[0]}`];
    assertSloNames(o.slos.map(parseSlo), names, o.script ? `the script ${o.script}` : `the path ${source[0]}`);
  }
  return kinds.map((kind) => ({
    kind: 'capacity',
    id: idOf(kind),
    balancer: kind,
    what: `capacity of ${o.script ? path.basename(o.script) : source[0]} at ${COUNTS.join(', ')} replicas behind ${kind}`,
    expectedS: Math.round(COUNT_S * COUNTS.length * (o.scale < 1 ? 1 : 3)),
    args: [
      'capacity',
      ...source,
      '--deployments',
      'replicated',
      '--replicas',
      COUNTS.join(','),
      '--cap',
      CAP,
      '--balancer',
      kind,
      ...(o.slos ?? []).flatMap((s) => ['--slo', s]),
      // A quick study verifies once, with short levels.
      ...(o.scale < 1 ? ['--repetitions', '1', '--hold', '3s', '--warmup', '1s', '--precision', '0.1'] : []),
    ],
    // (Your service, its stores, --profile, --tls, the script and its flags, as given: ./passed.js.)
    values: { ...serviceValues(o), ...profileValues(o), ...scriptValues(o), ...searchValues(o) },
  }));
}

// Each kind's sweep, read back: { kind, scaling, file } for those done.
function sweeps(studyDir, runs) {
  return runs
    .map((r) => {
      const file = path.join(studyDir, 'runs', r.id, 'capacity.json');
      const c = fs.existsSync(file) ? readJson(file) : null;
      return c?.scaling ? { kind: r.balancer, scaling: c.scaling, capacity: c } : null;
    })
    .filter(Boolean);
}

// Which stops scaling first: the lowest share of linear at the largest count measured (what N
// replicas held over N times what one held), and the peak where the law has one.
function verdictOf(done) {
  const rows = done.map(({ kind, scaling: s }) => {
    const good = s.points.filter((p) => !p.leftOut && p.maxRate !== null);
    const one = good.find((p) => p.replicas === 1)?.maxRate ?? s.fit?.lambda ?? null;
    const last = good.length ? good[good.length - 1] : null;
    const efficiency = one && last ? last.maxRate / (last.replicas * one) : null;
    return { kind, s, last, efficiency };
  });
  const ranked = rows.filter((r) => r.efficiency !== null).sort((a, b) => a.efficiency - b.efficiency);
  return { rows, first: ranked[0] ?? null };
}

function render({ studyDir, plan: runs, machine, failures = {} }) {
  const done = sweeps(studyDir, runs);
  const { rows, first } = verdictOf(done);
  const html = [h`<h1>Which balancer stops scaling first</h1>`];
  const md = ['# Which balancer stops scaling first', ''];
  const missing = runs.filter((r) => !done.some((d) => idOf(d.kind) === r.id)).map((r) => r.id);
  const intro = `Your service's capacity at ${COUNTS.join(', ')} replicas, each capped at ${CAP.split('=')[1]} of a core, behind ${runs.map((r) => r.balancer).join(', ')}; the Universal Scalability Law fitted to each sweep (docs/scaling.md).${missing.length ? ` Not done: ${missing.join(', ')}.` : ''}`;
  html.push(h`<p>${intro}</p>`);
  md.push(intro, '');
  for (const [id, reason] of Object.entries(failures)) {
    html.push(h`<p class="warn">${id} failed: ${reason}</p>`);
    md.push(`- **${id} failed**: ${reason}`);
  }
  if (first) {
    const text = `${first.kind} stops scaling first: ${first.last.replicas} replicas held ${Math.round(first.efficiency * 100)}% of ${first.last.replicas} times what one held${first.s.fit?.peak ? `; its curve peaks at ${first.s.fit.peak.replicas} replicas` : ''}`;
    html.push(h`<p><b>${text}</b>.</p>`);
    md.push(`**${text}.**`, '');
  }
  if (done.length) {
    const series = [];
    for (const { kind, scaling: s } of done) {
      series.push({
        name: `${kind} measured`,
        points: s.points.filter((p) => !p.leftOut && p.maxRate !== null).map((p) => [p.replicas, p.maxRate]),
        scatter: true,
      });
      if (s.curve) series.push({ name: `${kind} fitted`, points: s.curve.map((c) => [c.replicas, c.rate]) });
    }
    html.push(
      lineChart(series, {
        title: 'What N replicas held behind each balancer (arrivals a second under the SLO), and the law fitted',
        xLabel: 'replicas',
        yLabel: 'arrivals a second',
        xMin: 0,
      }),
    );
    const head = [
      'balancer',
      ...COUNTS.map((n) => `${n} replica(s) /s`),
      'sigma',
      'kappa',
      'one replica /s',
      'peak',
      'efficiency at the last',
    ];
    const body = rows.map(({ kind, s, efficiency }) => [
      kind,
      ...COUNTS.map((n) => {
        const p = s.points.find((x) => x.replicas === n);
        return p ? `${p.maxRate ?? 'none'}${p.leftOut ? ' (left out)' : ''}` : '-';
      }),
      s.fit ? s.fit.sigma : '-',
      s.fit ? s.fit.kappa : '-',
      s.fit ? s.fit.lambda : '-',
      s.fit?.peak ? `${s.fit.peak.replicas} replicas` : s.fit ? 'none' : '-',
      efficiency === null ? '-' : `${Math.round(efficiency * 100)}%`,
    ]);
    html.push(table(head, body));
    md.push(
      `| ${head.join(' | ')} |`,
      `|${head.map(() => '---').join('|')}|`,
      ...body.map((r) => `| ${r.join(' | ')} |`),
      '',
    );
    for (const { kind, scaling: s } of done) {
      html.push(h`<h2>Behind ${kind}</h2><pre>${scalingText(s)}</pre>`);
      md.push(`## Behind ${kind}`, '', '```', scalingText(s), '```', '');
    }
  }
  return {
    html: page('Which balancer stops scaling first', h`${html.map((x) => h`${x}\n`)}`, machine),
    markdown: `${md.join('\n')}\nMeasured on ${machine.hostname}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.\n`,
  };
}

module.exports = {
  name: 'scaling',
  seed: 'yours',
  title: 'Which balancer stops scaling first',
  what: `your service (--app, one --endpoints path or --script) at ${COUNTS.join(', ')} replicas capped at ${CAP.split('=')[1]} of a core, behind nginx, nginx-l4, HAProxy and the node balancer (--balancers), the Universal Scalability Law fitted to each`,
  // (Shared with the deployments study: both are of your service.)
  flags: YOUR_SERVICE_FLAGS,
  needs: ['app'],
  plan,
  render,
  KINDS,
  COUNTS,
};
