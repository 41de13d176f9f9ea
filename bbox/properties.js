'use strict';

// Parses the Java-style .properties subset the course image read: `key = value` or
// `key: value` lines, `#` and `!` comments, blank lines. Returns a plain object.
function parseProperties(text) {
  const out = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:]?\s*(.*)$/.exec(line);
    if (m) out[m[1]] = m[2].trim();
  }
  return out;
}

module.exports = parseProperties;
