'use strict';

// Renders rows (objects) as a plain aligned text table; `columns` are [key, title] pairs.
function table(rows, columns) {
  const cells = [columns.map(([, title]) => title), ...rows.map((r) => columns.map(([k]) => fmt(r[k])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function fmt(v) {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(1);
  return String(v);
}

module.exports = table;
