'use strict';

// The last lines of a program's output, for a message: at most `lines` of them, each cut to
// `width` characters (saying how many more there were), so that a message stays a message: a
// set-up that printed one 3 MB line once gave a 16 KB error.
const LINES = 8;
const WIDTH = 240;

function lastLines(text, { lines = LINES, width = WIDTH, indent = '  ', none = '(it wrote nothing)' } = {}) {
  const out = String(text)
    .replace(/\s+$/, '')
    .split('\n')
    .slice(-lines)
    .map((l) => l.replace(/\r$/, ''))
    .map((l) => (l.length > width ? `${l.slice(0, width)}... (${l.length - width} more characters)` : l));
  if (!out.join('').trim()) return `${indent}${none}`;
  return out.map((l) => `${indent}${l}`).join('\n');
}

module.exports = { lastLines, LINES, WIDTH };
