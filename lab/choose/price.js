'use strict';

// Money (choose --price 'cpu=0.04,memory=0.005'): the user's prices, a core-hour and a
// GiB-hour (none built in: a provider's change by region, by commitment and by month), and
// what a candidate costs a month at them: its cores, and its replicas' memory as measured.
const HOURS_A_MONTH = (365 * 24) / 12;
// The most a price may be: a core-hour or a GiB-hour above this is a typo (cents for dollars).
const MAX_PRICE = 1000;
const KEYS = { cpu: 'a core-hour', memory: 'a GiB-hour' };

// 'cpu=0.04,memory=0.005' -> { cpu: 0.04, memory: 0.005 }; either may be left out (then 0).
function parsePrice(text) {
  const out = {};
  for (const part of String(text).split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*([0-9]*\.?[0-9]+)\s*$/.exec(part);
    const bad = (reason) => Object.assign(new Error(reason), { reason });
    if (!m) throw bad(`"${part}" is not name=price`);
    if (!KEYS[m[1]]) throw bad(`"${m[1]}" is not priced: cpu (${KEYS.cpu}) or memory (${KEYS.memory})`);
    if (m[1] in out) throw bad(`it prices ${m[1]} twice`);
    const v = Number(m[2]);
    if (!(v >= 0 && v <= MAX_PRICE)) throw bad(`${m[1]}=${m[2]} is not from 0 to ${MAX_PRICE}`);
    out[m[1]] = v;
  }
  if (!Object.values(out).some((v) => v > 0))
    throw Object.assign(new Error('no price'), { reason: 'every price is 0' });
  return { cpu: out.cpu ?? 0, memory: out.memory ?? 0 };
}

const cents = (v) => Math.round(v * 100) / 100;

// A candidate's cost a month at `price`: { perMonth, cpu, memory } (each a month), or
// { perMonth: null, missing } when memory is priced and its replicas' memory was not measured.
function monthlyCost({ cores, replicas, memoryMiB }, price) {
  const cpu = cores * price.cpu * HOURS_A_MONTH;
  if (price.memory > 0 && memoryMiB == null) {
    return { perMonth: null, missing: "its replicas' memory was not measured, and memory is priced" };
  }
  const memory = price.memory > 0 ? ((replicas * memoryMiB) / 1024) * price.memory * HOURS_A_MONTH : 0;
  return { perMonth: cents(cpu + memory), cpu: cents(cpu), memory: cents(memory) };
}

// The order of two candidates by their cost a month (an unknown cost after every known one).
const byCost = (a, b) => (a.cost?.perMonth ?? Infinity) - (b.cost?.perMonth ?? Infinity);

const priceText = (price) =>
  `cpu ${price.cpu} ${KEYS.cpu}, memory ${price.memory} ${KEYS.memory}, ${HOURS_A_MONTH} hours a month`;

module.exports = { parsePrice, monthlyCost, byCost, priceText, HOURS_A_MONTH };
