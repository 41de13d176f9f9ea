'use strict';

const cheerio = require('cheerio');
const { choicePage } = require('../../../lab/report/choice-html');
const { chartSpecs } = require('../../helper');

// The page of a choice (issue 83): the interval's width said, the autoscaler's numbers shown,
// whole replica counts on the axis, and a choice stopped early shows what its sweeps measured.
const base = {
  version: 1,
  what: '/price',
  slos: ['p99<200', 'errors<1%'],
  rate: 20,
  headroomPct: 30,
  want: 26,
  cpuPerReplica: 0.25,
  counts: [1, 2, 3, 4],
  status: 'completed',
  sweeps: [],
  candidates: [],
  checks: [],
  files: [],
  text: 'replicated x3',
};
const candidate = {
  rank: 1,
  shape: 'replicated',
  label: 'replicated',
  replicas: 3,
  cores: 0.75,
  from: 'predicted',
  points: [1, 2, 3, 4].map((n) => ({ replicas: n, maxRate: 10 * n })),
  curve: [1, 2, 3, 4, 5].map((n) => ({ replicas: n, rate: 10 * n, low: 0, high: 20 * n })),
  fit: { sigma: 0, kappa: 0, lambda: 10, dof: 1, peak: null },
  prediction: { rate: 30, low: 4.1, high: 55.9 },
  measured: null,
  holds: 30,
  memoryMiB: 60,
};

test('a fitted candidate: its interval said in words, wide with one degree of freedom; the HPA shown', () => {
  const page = choicePage({
    ...base,
    candidates: [candidate],
    choice: candidate,
    hpa: { minReplicas: 3, maxReplicas: 6, target: 62, downWindowS: 15 },
  });
  const text = cheerio.load(page)('body').text().replace(/\s+/g, ' ');
  expect(text).toMatch(
    /replicated: the law fitted to 4 counts keeps 1 degree\(s\) of freedom; at 3 replica\(s\) its 95% interval for a new measurement spans 4\.1 to 55\.9\/s, 173% of the 30\/s predicted: wide/,
  );
  expect(text).toMatch(
    /A HorizontalPodAutoscaler from 3 to 6 replica\(s\), scaling on CPU at 62% of each replica's 0\.25 of a core, scaling down after 15 s of lower recommendations \(kubernetes\/deployment\.yml\)/,
  );
  const [chart] = chartSpecs(page);
  expect(chart.integerX).toBe(true);
  // The autoscaler's run, when there was one (choose --check-autoscale), said under it.
  expect(text).not.toMatch(/Run under the lab's autoscaler/);
  const run = { ran: true, held: true, text: 'held p99<200 on a ramp from 20/s to 40/s and back: it scaled out to 5' };
  const ran = cheerio.load(
    choicePage({
      ...base,
      candidates: [candidate],
      choice: candidate,
      hpa: { minReplicas: 3, maxReplicas: 6, target: 62 },
      autoscaleCheck: run,
    }),
  );
  expect(ran('body').text().replace(/\s+/g, ' ')).toMatch(
    /of a core \(kubernetes\/deployment\.yml\)\. Run under the lab's autoscaler: held p99<200 on a ramp from 20\/s to 40\/s and back: it scaled out to 5\./,
  );
});

test('a choice stopped while measuring: no candidate, and the chart shows what its sweeps measured, cut short said', () => {
  const page = choicePage({
    ...base,
    status: 'interrupted',
    text: 'the choice was interrupted while measuring: nothing was chosen',
    sweeps: [
      {
        id: 'replicated',
        points: [
          { replicas: 1, maxRate: 11.3 },
          { replicas: 2, maxRate: null, heldAtLeast: 18, cut: true },
        ],
      },
    ],
  });
  const [chart] = chartSpecs(page);
  const names = chart.series.map((s) => s.name);
  expect(names).toEqual(
    expect.arrayContaining(['replicated: measured', 'replicated: held at least (search cut short)']),
  );
  expect(chart.data[0]).toEqual(expect.arrayContaining([1, 2]));
});

// A sweep or a screen measured while this machine's CPUs ran apart (lab/measure/cpu-speeds.js):
// said before the figures, naming which; one whose CPUs agreed says nothing.
test("the sweeps and screens measured while the machine's CPUs ran apart: each said before the figures", () => {
  const apart = (ms0, ms1) =>
    `this machine's CPUs did not run at one speed: the same computation took ${ms0} ms on CPU 0 and ${ms1} ms on CPU 1 (x% apart) at the start, over 15% apart`;
  const $ = cheerio.load(
    choicePage({
      ...base,
      screens: [
        { id: 'replicated-25pct', points: [], cpuSpeedsText: apart(1.3, 1.05) },
        { id: 'replicated-50pct', points: [] },
      ],
      sweeps: [
        { id: 'replicated-50pct', points: [{ replicas: 1, maxRate: 206.3 }], cpuSpeedsText: apart(1.67, 1.03) },
        { id: 'multi-replicated-50pct', points: [{ replicas: 1, maxRate: 200 }] },
      ],
    }),
  );
  const said = $('p.cpu-speeds')
    .map((_, e) => $(e).text().replace(/\s+/g, ' '))
    .get();
  expect(said).toEqual([
    `While the screen replicated-25pct measured, ${apart(1.3, 1.05)}.`,
    `While the sweep replicated-50pct measured, ${apart(1.67, 1.03)}.`,
  ]);
  // (Before the chart and the tables of figures.)
  expect($('p.cpu-speeds').first().nextAll('h2').length).toBe($('h2').length);
  expect(cheerio.load(choicePage(base))('p.cpu-speeds')).toHaveLength(0);
});
