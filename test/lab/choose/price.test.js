'use strict';

const { parsePrice, monthlyCost, HOURS_A_MONTH } = require('../../../lab/choose/price');
const { rankCandidates, checkOrder } = require('../../../lab/choose/candidates');
const { candidateText, costText } = require('../../../lab/report/choice-text');
const { usl } = require('../../../lab/capacity/usl');
const { refusalOf } = require('../../helper');
const choosePlan = require('../../../lab/commands/choose/plan');

// choose --price: the user's prices a core-hour and a GiB-hour, each candidate's cost a month
// at them, and the cheapest ranked (and checked) first.
const reason = (text) => {
  try {
    parsePrice(text);
  } catch (err) {
    return err.reason;
  }
  return 'accepted';
};

test('prices: cpu and memory, either alone; anything else refused with why', () => {
  expect(parsePrice('cpu=0.04,memory=0.005')).toEqual({ cpu: 0.04, memory: 0.005 });
  expect(parsePrice('memory=.01')).toEqual({ cpu: 0, memory: 0.01 });
  expect(parsePrice(' cpu = 2 ')).toEqual({ cpu: 2, memory: 0 });
  expect(reason('gpu=1')).toMatch(/"gpu" is not priced: cpu \(a core-hour\) or memory \(a GiB-hour\)/);
  expect(reason('cpu=1,cpu=2')).toBe('it prices cpu twice');
  expect(reason('cpu=-1')).toMatch(/is not name=price/);
  expect(reason('cpu=5000')).toBe('cpu=5000 is not from 0 to 1000');
  expect(reason('cpu=0,memory=0')).toBe('every price is 0');
  expect(reason('0.04')).toMatch(/"0.04" is not name=price/);
});

test("a month's cost: the cores, and every replica's memory as measured", () => {
  // 3 replicas of 0.25 core and 512 MiB: 0.75 core and 1.5 GiB for 730 hours.
  const c = monthlyCost({ cores: 0.75, replicas: 3, memoryMiB: 512 }, { cpu: 0.04, memory: 0.005 });
  expect(HOURS_A_MONTH).toBe(730);
  expect(c).toEqual({ perMonth: 27.38, cpu: 21.9, memory: 5.48 });
  expect(costText(c)).toBe('27.38 a month (cpu 21.90, memory 5.48)');
  // Memory priced but not measured: no figure made up, and why.
  const unknown = monthlyCost({ cores: 1, replicas: 2, memoryMiB: null }, { cpu: 0.04, memory: 0.005 });
  expect(unknown.perMonth).toBeNull();
  expect(costText(unknown)).toMatch(/cost unknown: its replicas' memory was not measured/);
  // Memory not priced: its absence costs nothing.
  expect(monthlyCost({ cores: 1, replicas: 2, memoryMiB: null }, { cpu: 0.1, memory: 0 }).perMonth).toBe(73);
});

// Two shapes: fewer cores with much more memory (a Node cluster's workers each hold a heap),
// against more cores with little.
function sweep(shape, law, memoryMiB, workers = 1) {
  return {
    shape,
    workers,
    balancer: 'nginx',
    capPct: 25,
    points: [1, 2, 3, 4].map((n, i) => ({
      replicas: n,
      maxRate: Math.round(usl(n, law) * (1 + [0.01, -0.01, 0.005, -0.005][i]) * 10) / 10,
      memoryMiB,
    })),
  };
}
const lean = sweep('replicated', { lambda: 25, sigma: 0.05, kappa: 0 }, 60);
const heavy = sweep('multi-replicated', { lambda: 30, sigma: 0.05, kappa: 0 }, 2000, 2);

test('with prices the cheapest a month ranks first, where by cores another would; the order of checks too', () => {
  const o = { rate: 60, headroom: 0.3 };
  // 78/s wanted: 3 of the heavy (0.75 core) against 4 of the lean (1 core).
  expect(rankCandidates([lean, heavy], o).choice).toMatchObject({ shape: 'multi-replicated', replicas: 3 });
  const price = { cpu: 0.04, memory: 0.005 };
  const r = rankCandidates([lean, heavy], { ...o, price });
  expect(r.choice).toMatchObject({ shape: 'replicated', replicas: 4, rank: 1 });
  expect(r.choice.cost.perMonth).toBeLessThan(r.candidates[1].cost.perMonth);
  expect(candidateText(r.choice)).toMatch(/^replicated x4: 1 cores \(4 x 0.25\), [\d.]+ a month \(cpu 29.20, memory/);
  expect(checkOrder(r.candidates, 64, price).map((c) => `${c.shape} x${c.replicas}`)).toEqual([
    'replicated x4',
    'replicated x5',
    'multi-replicated x3',
    'multi-replicated x4',
  ]);
  // Without prices, no cost is said.
  expect(rankCandidates([lean, heavy], o).choice.cost).toBeUndefined();
});

test('choose --price: in the plan, ranked by cost; a bad price refused before anything runs', async () => {
  const p = choosePlan.plan(['ping', '--rate', '50', '--price', 'cpu=0.04,memory=0.005']);
  expect(p.price).toEqual({ cpu: 0.04, memory: 0.005 });
  expect(choosePlan.planText(p)).toMatch(
    /ranked by cost a month \(--price: cpu 0.04 a core-hour, memory 0.005 a GiB-hour, 730 hours a month\)/,
  );
  expect(choosePlan.planText(choosePlan.plan(['ping', '--rate', '50']))).toMatch(/; ranked by cores/);
  const bad = refusalOf(() => choosePlan.plan(['ping', '--rate', '50', '--price', 'cpu=0.04,disk=1']));
  expect(bad.exit).toBe(2);
  expect(bad.message).toMatch(/--price.*cpu=0.04,disk=1/);
});
