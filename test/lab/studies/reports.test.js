'use strict';

const path = require('node:path');
const { STUDIES } = require('../../../lab/studies');
const { renderReport } = require('../../../lab/studies/kit');

// The fixtures are real runs of the quick studies on the 2-core dev machine (--scale 0.1),
// cut down to the files the reports read: the reports must be a function of them alone.
const FIX = path.join(__dirname, 'fixtures');
const machine = { hostname: 'vm', cpuModel: 'x', cores: 2, memoryGiB: 23.5, node: 'v20' };

function report(name, dir, { scale = 0.1, failures = {} } = {}) {
  const study = STUDIES[name];
  const studyDir = path.join(FIX, dir);
  const plan = study.plan({ scale });
  const sections = study.sections({ studyDir, plan, scale, failures });
  return { sections, ...renderReport({ study, sections, plan, missing: [], failures, machine, scale }) };
}

const factsOf = (sections) => sections.flatMap((s) => s.facts || []);

// A study's sections from a copy of its fixture, with one node's mean CPU raised by `points`
// in the runs `pick` chooses: the same runs, made busier.
function sectionsBusier(name, dir, pick, node, points) {
  const fs = require('node:fs');
  const os = require('node:os');
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `lab-${dir}-`));
  fs.cpSync(path.join(FIX, dir), copy, { recursive: true });
  for (const id of fs.readdirSync(path.join(copy, 'runs')).filter(pick)) {
    const file = path.join(copy, 'runs', id, 'summary.json');
    const s = JSON.parse(fs.readFileSync(file, 'utf8'));
    s.nodes.rows.find((r) => r.node === node).cpuPctMean += points;
    fs.writeFileSync(file, JSON.stringify(s));
  }
  const study = STUDIES[name];
  return study.sections({ studyDir: copy, plan: study.plan({ scale: 0.1 }), scale: 0.1, failures: {} });
}

describe('study reports, from the runs alone', () => {
  test("cdn: every repetition's wrk-like row beside the seed's, ratios from their medians, the capped node named", () => {
    const { sections, markdown, html } = report('cdn', 'cdn');
    const rows = sections[0].tables[0].rows;
    expect(rows).toHaveLength(12); // 3 cases x (3 repetitions + the seed)
    expect(rows[3]).toEqual(expect.arrayContaining(['no caps', 'seed 000', '106.3', '6,385']));
    expect(rows.slice(0, 3).map((r) => r[1])).toEqual(['this lab, run 1', 'this lab, run 2', 'this lab, run 3']);
    // Computed from the fixtures: 212.8 / 297.3 / 294.3 r/s against the uncapped median 7,320.1.
    expect(factsOf(sections)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^2% CPU, 25 MiB: requests per second fell to 0\.04x of the uncapped runs' median here \(runs: 0\.03x to 0\.04x\), 0\.37x in the seed/,
        ),
        '2% CPU, 25 MiB: nginx reached its cap in all 3 repetitions here; in the seed, load-balancer only.',
      ]),
    );
    const nodes = sections[2].tables;
    expect(nodes).toHaveLength(5);
    const nginx = nodes[1].rows.find((r) => r[0] === 'nginx');
    expect(nginx[3]).toBe('2%');
    expect(nginx[nginx.length - 1]).toBe('yes');
    expect(nodes[3].rows.find((r) => r[0] === 'nginx')[3]).toBe('2% / 500 ms');
    expect(markdown).toMatch(/## What differs from the seed's set-up/);
    expect(html).toMatch(/<h2>Nodes, case by case<\/h2>/);
  });

  test('cdn: the node tables share one footnote, written once; the others refer to it', () => {
    const { sections, markdown, html } = report('cdn', 'cdn');
    const note = sections[2].tables[0].note;
    expect(sections[2].tables.every((t) => t.note === note)).toBe(true);
    const once = (text) => text.split('sampled once a second; group CPU').length - 1;
    expect(once(html)).toBe(1);
    expect(once(markdown)).toBe(1);
    const nodes = String(html).slice(String(html).indexOf('<h2>Nodes, case by case</h2>'));
    const n = nodes.match(/<p class="note" id="note-(\d+)">Note \1, for this table and the ones like it below: /)[1];
    expect(nodes.split(`As <a href="#note-${n}">note ${n}</a> says, above.`).length - 1).toBe(
      sections[2].tables.length - 1,
    );
  });

  test('cdn: why ours differs, tested: the CFS period and the capped node, verdicts computed from the runs', () => {
    const { sections } = report('cdn', 'cdn');
    const why = sections[1];
    expect(why.title).toBe('Why ours differs, tested');
    expect(why.facts[0]).toMatch(/^Claim: under a 2% cap .* Verdict at 2%: confirmed: .* Rule: /);
    expect(why.facts[1]).toMatch(/Verdict at 1%: confirmed/);
    expect(why.facts[2]).toMatch(
      /the balancer alone is at its cap.* Verdict: confirmed \(2%: nginx over 3 run\(s\); 1%: nginx over 3 run\(s\)\)/,
    );
    const [two] = why.tables;
    expect(two.head).toEqual(expect.arrayContaining(['at 100 ms steps', 'at 500 ms steps']));
    expect(two.rows).toHaveLength(6);
    // The 100 ms runs end at 100 ms steps, not 500 ms ones.
    expect(two.rows[0].slice(3, 5)).toEqual(['100%', '0%']);
  });

  test('cdn: the uncapped runs say whether this machine, not the CDN, was the limit', () => {
    // The quick fixtures: 77-85% of the 2 cores busy, so not every run was bound.
    expect(factsOf(report('cdn', 'cdn').sections)[0]).toBe(
      "no caps: this machine's 2 cores were 77-85% busy, the generator alone 87-91% of a core.",
    );
    // The same runs with the run at 77% made busier: every run at 80% or more reads as the machine's limit.
    const uncapped = ['cdn-no-caps', 'cdn-no-caps-r2', 'cdn-no-caps-r3'];
    const sections = sectionsBusier('cdn', 'cdn', (id) => uncapped.includes(id), 'nginx', 10);
    expect(factsOf(sections)[0]).toMatch(
      /^no caps: this machine was the limit, not the CDN: its 2 cores were 82-90% busy in every run, the generator alone 87-91% of a core\. The uncapped rate is what one machine drives and serves at once/,
    );
  });

  test('cdn: repetitions that disagree on the capped node make the finding "unstable", and the claim inconclusive', () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cdn-'));
    fs.cpSync(path.join(FIX, 'cdn'), dir, { recursive: true });
    // Repetition 2 of the 2% case: edge-4 throttled at its cap too.
    const file = path.join(dir, 'runs', 'cdn-2pct-25M-r2', 'summary.json');
    const s = JSON.parse(fs.readFileSync(file, 'utf8'));
    Object.assign(
      s.nodes.rows.find((r) => r.node === 'edge-4'),
      { cgroupCpuPct: 1.9 },
    );
    fs.writeFileSync(file, JSON.stringify(s));
    const study = STUDIES.cdn;
    const plan = study.plan({ scale: 0.1 });
    const sections = study.sections({ studyDir: dir, plan, scale: 0.1, failures: {} });
    expect(factsOf(sections)).toEqual(
      expect.arrayContaining([
        '2% CPU, 25 MiB: unstable: the repetitions disagree (nginx in 2; edge-4, nginx in 1) here; in the seed, load-balancer only.',
      ]),
    );
    expect(sections[1].facts[2]).toMatch(/Verdict: inconclusive \(unstable\) \(2%: unstable over 3 run\(s\)/);
  });

  test('lb-modes: the three kinds per concurrency, every repetition, the seed only where it measured, ratios with their range', () => {
    const { sections } = report('lb-modes', 'lb');
    const [c200, c1000, c2000] = sections[0].tables;
    expect(c200.rows.every((r) => /^this lab, run [123]$/.test(r[1]))).toBe(true);
    expect(c200.caption).toMatch(/the seed has no figures/);
    expect(c1000.rows.filter((r) => r[1] === 'seed 001').map((r) => r[4])).toEqual(['3,747.8', '3,867.6', '1,558.2']);
    expect(c2000.rows).toHaveLength(3 * 3 + 3);
    const none = c1000.rows.find((r) => r[0] === 'NodePort' && r[1] === 'this lab, run 1');
    expect(none[2]).toBe('-'); // no balancer, no balancer column
    expect(none[3]).toMatch(/^\d+m \/ \d+ MiB$/);
    const facts = factsOf(sections).join('\n');
    expect(facts).toMatch(
      /At concurrency 200, requests per second against no balancer: nginx L4 \(TCP\) [\d.]+x \(runs: [\d.]+x to [\d.]+x\), level with it in all 3 runs; nginx L7/,
    );
    expect(facts).toMatch(
      /nginx L7 \(HTTP\) [\d.]+x \(runs: [\d.]+x to [\d.]+x\), slower in all 3 runs, seed 0\.42x\./,
    );
    // How busy the machine was, and how far no balancer's own rate moved: what "unstable" is read against.
    expect(factsOf(sections)).toContain(
      "At concurrency 1000, this machine's 2 cores were 62-82% busy, the generator alone 54-76% of a core; no balancer's own rate went from 2,276 to 2,599 r/s over its 3 repetitions (13% of their median).",
    );
  });

  test('lb-modes: the balancer-CPU sweep beside the seed, and the verdict on "short of CPU" from the runs', () => {
    const { sections } = report('lb-modes', 'lb');
    const sweep = sections[1].tables[0];
    expect(sweep.rows).toHaveLength(6 * 2 + 2);
    const l7at5 = sweep.rows.find((r) => r[0] === '5%' && r[1] === 'nginx L7 (HTTP)');
    // Computed from the fixtures: 697 r/s, 0.28x (0.24-0.33), throttled in 97% of periods.
    expect(l7at5.slice(2, 5)).toEqual(['3', '697', '0.28x (0.24-0.33)']);
    expect(l7at5[8]).toBe('3 of 3');
    expect(sweep.rows.at(-1).slice(0, 7)).toEqual([
      '100% (1,000m)',
      'seed 001, LB - HTTP',
      '1',
      '1,558',
      '0.42x',
      '854m',
      '0.548',
    ]);
    const why = sections[2];
    expect(why.title).toBe('Why ours differs, tested');
    expect(why.facts[0]).toMatch(
      /^Claim: a balancer short of CPU makes L7 expensive.* Verdict: confirmed: L7 went from 0\.85x at 100% to 0\.28x at 5% of a core, its balancer at its cap \(all 3 repetitions agree; the figures are run 1's\)\. Rule: /,
    );
    expect(why.facts[1]).toBe(
      'The cap at which nginx L7 (HTTP) falls to 0.42x of no balancer: 5% in all 3 repetitions.',
    );
    expect(why.facts[2]).toMatch(/^nginx L4 \(TCP\) at that cap: falls too \(run 1 at 5%: L4 0\.52x, L7 0\.28x;/);
    expect(why.facts[3]).toMatch(/^CPU per L7 request at 100%: 0\.064 ms here .* 0\.548 ms in the seed/);
  });

  test('lb-modes: repetitions that disagree make the verdict inconclusive, saying so', () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-lb-'));
    fs.cpSync(path.join(FIX, 'lb'), dir, { recursive: true });
    // Repetition 3 at 5%: L7 kept half of no balancer's rate (above 0.42x), and never fell lower.
    const file = path.join(dir, 'runs', 'lb-nginx-c1000-cap5-r3', 'summary.json');
    const s = JSON.parse(fs.readFileSync(file, 'utf8'));
    const base = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'lb-none-c1000-r3', 'summary.json'), 'utf8'));
    s.meanResponseRate = base.meanResponseRate * 0.5;
    fs.writeFileSync(file, JSON.stringify(s));
    const study = STUDIES['lb-modes'];
    const plan = study.plan({ scale: 0.1 });
    const sections = study.sections({ studyDir: dir, plan, scale: 0.1, failures: {} });
    expect(sections[2].facts[0]).toMatch(
      /Verdict: inconclusive: unstable: the repetitions disagree \(confirmed in 2; inconclusive in 1\)/,
    );
    expect(sections[2].facts[1]).toMatch(/unstable \(5% in 2; none of the caps run in 1\)/);
  });

  test('balancers: one line per (balancer, servers) on a chart, every repetition at 20 clients, the mesh not run with its reason', () => {
    const why = 'not run: the container engine is not usable [LAB_ERR_ENGINE]';
    const failures = { 'bal-mesh-1': why, 'bal-mesh-3': why, 'bal-mesh-5': why };
    const { sections, html } = report('balancers', 'bal', { failures });
    const s = sections[0];
    expect(s.charts).toHaveLength(1);
    expect(html).toMatch(/<figure class="chart"/);
    for (const name of ['node, 1 server', 'node, 3 servers', 'nginx, 5 servers'])
      expect(String(s.charts[0])).toContain(name);
    const t = s.tables[0].rows;
    // Every repetition, with the busiest server's share of its cap read from its group.
    expect(t.filter((r) => r[0] === 'node' && r[1] === 3).map((r) => r[2])).toEqual(['1', '2', '3']);
    expect(t.find((r) => r[0] === 'node' && r[1] === 3)).toEqual([
      'node',
      3,
      '1',
      '207',
      '365.1',
      '89.9',
      '0',
      '82%',
      '37%',
      '47.6',
    ]);
    expect(t.find((r) => r[0] === 'mesh' && r[1] === 5)).toEqual([
      'mesh',
      5,
      '1',
      'not run',
      '-',
      '-',
      '-',
      '-',
      '-',
      '34.4',
    ]);
    const facts = factsOf(sections).join('\n');
    expect(facts).toMatch(
      /node at 20 clients: 1 \/ 3 \/ 5 servers 539\.4 \/ 207 \/ 126\.8 ms \(first repetition\), falling as servers are added in all 3 repetitions, as in the seed; 3 -> 5 servers gains 39% \(runs: 34% to 41%\)/,
    );
    expect(facts).toMatch(
      /not run: mesh x 1, mesh x 3, mesh x 5: the container engine is not usable \[LAB_ERR_ENGINE\]/,
    );
  });

  test('balancers: why ours differs, tested: the two regimes, the verdict computed over the repetitions', () => {
    const { sections } = report('balancers', 'bal');
    const why = sections[1];
    expect(why.title).toBe('Why ours differs, tested');
    expect(why.facts[0]).toMatch(
      /^Claim: 5 servers gain much more over 3 here than in the seed \(39% against 7% and 16%\).* Verdict: confirmed: CPU-bound .* gained 39%; with the servers at 24% of their cap .* -7% \(all 3 repetitions agree; the figures are run 1's\)\. Rule: /,
    );
    expect(why.facts[1]).toBe(
      'The regime that reproduces the seed\'s "3 and 5 close" (a gain under 20%): servers capped at 100%, /work?n=5.',
    );
    const rows = why.tables[0].rows;
    expect(rows).toHaveLength(3 * 2 + 1);
    expect(rows[1]).toEqual([
      'servers capped at 100%, /work?n=5',
      '1',
      '22.2 / 24.1 / 25.9',
      '887 / 817 / 760',
      '-7%',
      '24%',
      '76% / 79% / 83%',
    ]);
    expect(rows.at(-1)[4]).toBe('7%');
    // What bounds the light regime, read from every node's CPU: here not this machine in every
    // run (78% is under the 80% the rule asks).
    expect(why.facts[2]).toBe(
      "What bounds the light regime at 20 clients (3 and 5 servers): its busiest server used 15-24% of its cap while this machine's 2 cores were 78-83% busy, the generator alone 56-67% of a core. Rule: this machine is the limit when every node's CPU and the generator's add up to at least 80% of its cores in every run.",
    );
  });

  test('balancers: a light regime with this machine busy in every run says the machine was the limit', () => {
    // The light regime's 3- and 5-server runs at 20 clients, their generator 10% of a core busier.
    const light = (id) => /^bal-light-node-[35](-r\d)?-c20$/.test(id);
    const sections = sectionsBusier('balancers', 'bal', light, 'generator', 10);
    expect(sections[1].facts[2]).toMatch(
      /this machine's 2 cores were 83-88% busy, the generator alone 56-67% of a core: this machine was the limit, not the servers\. Rule: /,
    );
  });

  test("signaling: the k6-like table and the capacity beside the seed's 11.6k, with the napkin math on our figure", () => {
    const { sections } = report('signaling', 'sig');
    expect(sections.map((x) => x.title)).toEqual([
      "The seed's stages to 1,000 participants, a k6-like table",
      'Capacity under 500 MiB, estimated and verified, beside the seed',
      'Capacity at several limits, measured',
      'Why ours differs, tested',
    ]);
    const k6 = sections[0].tables[0].rows;
    expect(k6.find((r) => r[0] === 'sessions')).toEqual(['sessions', '998', '999']);
    const cap = sections[1].tables[0].rows;
    expect(cap[1]).toEqual(['seed 002', '42.64 MB', '500 x 1000 / 43', '~11,600', 'not verified']);
    expect(cap[0][3]).toBe('51,572');
    expect(cap[0][4]).toBe('at least 19,000');
    expect(factsOf(sections).join('\n')).toMatch(
      /napkin math on our figure \(500 MiB \/ 102 MiB x 1,000\) gives 4,903/,
    );
  });

  test('signaling: first failures at six limits, capacity fitted against the limit with its interval, the RSS claim tested', () => {
    const { sections } = report('signaling', 'sig');
    const [limits, why] = sections.slice(2);
    expect(limits.tables[0].rows.map((r) => r.slice(0, 3))).toEqual([
      ['80 MiB', '0', '10,331'],
      ['90 MiB', '0', '11,788'],
      ['100 MiB', '489', '13,581'],
      ['120 MiB', '3,525', '16,863'],
      ['150 MiB', '6,685', 'none up to 19,000'],
      ['180 MiB', '9,722', 'none up to 19,000'],
    ]);
    // Fitted on the four that failed, not on the two lower bounds.
    expect(limits.facts[0]).toMatch(
      /^Capacity against the limit, from 4 measured first failures: 164\.8 connections a MiB \(6\.21 KiB a connection under the limit\).* At 500 MiB it gives 79,458 \(95% prediction interval 73,562 to 85,353\), beside 51,572 from the RSS fit/,
    );
    expect(why.facts[1]).toMatch(/Verdict: confirmed: RSS without the limit was \d+% to \d+% above RSS under it/);
    expect(why.facts[2]).toMatch(/^Under 150 MiB, 180 MiB the limited process was at 57%, 47% of its limit/);
    expect(why.tables[0].rows[0]).toEqual(['80 MiB', '5,000', '130.9', '84.2', '55.8', '27.3', '6 / 12', '322 / 634']);
  });

  test('signaling: an OOM kill with no error seen while held is named, and the count stays a lower bound', () => {
    // The full-scale run under 150 MiB: 19,000 held, then the kernel killed the service as
    // they all left. A copy of the fixtures with that one count changed.
    const fs = require('node:fs');
    const os = require('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sig-oom-'));
    try {
      fs.cpSync(path.join(FIX, 'sig'), dir, { recursive: true });
      const file = path.join(dir, 'runs', 'capacity-150M', 'capacity.json');
      const c = JSON.parse(fs.readFileSync(file, 'utf8'));
      c.verification.oomKills = 1;
      fs.writeFileSync(file, JSON.stringify(c));
      const study = STUDIES.signaling;
      const sections = study.sections({ studyDir: dir, plan: study.plan({ scale: 0.1 }), scale: 0.1, failures: {} });
      const limits = sections[2];
      expect(limits.tables[0].rows[4].slice(2, 5)).toEqual(['none up to 19,000 while held', '-', '1']);
      expect(limits.tables[0].rows[5][2]).toBe('none up to 19,000');
      expect(limits.facts.join('\n')).toMatch(
        /^Under 150 MiB the generator saw no error while its participants were held, yet the kernel OOM-killed the service/m,
      );
      // Still fitted on the four measured failures.
      expect(limits.facts[0]).toMatch(/from 4 measured first failures/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a study with no runs yet still renders, every cell of ours empty', () => {
    const { sections, markdown } = report('cdn', 'nothing-here');
    expect(sections[0].tables[0].rows[0].slice(2).every((c) => c === '-')).toBe(true);
    expect(markdown).toMatch(/\| no caps \| seed 000 \| 134\.5 /);
  });
});
