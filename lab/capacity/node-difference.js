'use strict';

// capacity --node 22,24: what changing the Node version changes, deployment by deployment.
// Each version's capacity is a bracket, not a point: the rate verified (held for the stated
// time) and the lowest rate that broke above it (the knee lies between; "at least" rows have
// no upper end). The difference between two versions is the interval those brackets allow,
// [other's held - base's broke, other's broke - base's held]: a difference is said only where
// the interval leaves out zero, never from the two verified rates alone.

const round = (v) => (Number.isFinite(v) ? Math.round(v * 10) / 10 : v);

// A row's bracket: [low, high] (high Infinity for "at least"), or null with no capacity.
function bracketOf(row) {
  if (row.maxRate === null || row.maxRate === undefined) return null;
  const high = row.atLeast || !row.broke ? Infinity : Math.max(row.maxRate, row.broke.rate);
  return [row.maxRate, high];
}

// -> [{ deployment, base, other, low, high, text }]: each version against the first given.
function nodeDifference(rows) {
  const out = [];
  const byDeployment = new Map();
  for (const r of rows.filter((x) => x.node)) {
    if (!byDeployment.has(r.deployment)) byDeployment.set(r.deployment, []);
    byDeployment.get(r.deployment).push(r);
  }
  for (const [deployment, [base, ...others]] of byDeployment) {
    for (const other of others) out.push({ deployment, ...differenceOf(base, other) });
  }
  return out;
}

function differenceOf(base, other) {
  const b = bracketOf(base);
  const o = bracketOf(other);
  const [from, to] = [base.node.version, other.node.version];
  const head = `${base.deployment}: Node ${to} against ${from}`;
  if (!b || !o) {
    const none = !b ? from : to;
    return {
      base: from,
      other: to,
      low: null,
      high: null,
      text: `${head}: no difference to give, Node ${none} has no capacity here (${(!b ? base : other).text})`,
    };
  }
  const low = round(o[0] - b[1]);
  const high = round(o[1] - b[0]);
  let verdict;
  if (low > 0) verdict = `holds more: ${Number.isFinite(high) ? `${low} to ${high}/s` : `at least ${low}/s`} more`;
  else if (high < 0)
    verdict = `holds less: ${Number.isFinite(low) ? `${-high} to ${-low}/s` : `at least ${-high}/s`} less`;
  else
    verdict = `no difference the search can tell (between ${Number.isFinite(low) ? low : '-inf'} and ${Number.isFinite(high) ? `+${high}` : '+inf'}/s: the brackets overlap)`;
  return {
    base: from,
    other: to,
    low: Number.isFinite(low) ? low : null,
    high: Number.isFinite(high) ? high : null,
    text: `${head}: ${verdict}; ${to} held ${other.maxRate}/s${o[1] !== Infinity ? ` (broke at ${o[1]}/s)` : ' (at least)'}, ${from} held ${base.maxRate}/s${b[1] !== Infinity ? ` (broke at ${b[1]}/s)` : ' (at least)'}, each for the time its row says`,
  };
}

// What a version's row says of its Node: the one asked, and the versions the service's
// processes reported at its levels (`seen`, tagged `tag`: the runtime probe), so a row never
// rests on the flag alone.
function nodeRow(node, seen, tag) {
  const reported = [...new Set(seen.filter((l) => l.deployment === tag).flatMap((l) => l.nodeVersions ?? []))].sort();
  return { spec: node.spec, version: node.version, reported };
}

module.exports = { nodeDifference, bracketOf, nodeRow };
