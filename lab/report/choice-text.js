'use strict';

// A candidate of npm run choose as a line of the terminal and the page (lab/choose/candidates.js
// makes them).

// One candidate's line: "replicated x3: 0.75 cores, predicted 96/s (95%: 80 to 112)".
function candidateText(c) {
  if (c.replicas === null) return `${c.label}: none (${c.refused})`;
  const pr = c.prediction;
  const iv =
    pr && pr.low !== null
      ? ` (95%: ${pr.low} to ${pr.high})`
      : pr
        ? ' (no interval: the fit has no degree of freedom)'
        : '';
  const figure =
    c.from === 'measured'
      ? `measured to hold ${c.measured.atLeast ? 'at least ' : ''}${c.measured.rate}/s${pr ? `, predicted ${pr.rate}/s${iv}` : ''}`
      : pr
        ? `predicted to hold ${pr.rate}/s${iv}`
        : `one replica more than a count expected to hold ${c.holds}/s`;
  const cost = c.cost ? `, ${costText(c.cost)}` : '';
  return `${c.label} x${c.replicas}: ${c.cores} cores (${c.replicas} x ${c.cpuPerReplica})${cost}, ${figure}`;
}

// What a cost a month reads as: "12.34 a month (cpu 10.00, memory 2.34)".
function costText(cost) {
  if (!cost) return '';
  if (cost.perMonth === null) return `cost unknown: ${cost.missing}`;
  return `${cost.perMonth.toFixed(2)} a month (cpu ${cost.cpu.toFixed(2)}, memory ${cost.memory.toFixed(2)})`;
}

module.exports = { candidateText, costText };
