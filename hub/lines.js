'use strict';

// Calls onLine for each complete line of a stream (newline-delimited JSON on both sides of
// the hub's connections); a partial last line waits for the rest.
function lines(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    rest += chunk;
    let at;
    while ((at = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, at);
      rest = rest.slice(at + 1);
      if (line) onLine(line);
    }
  });
}

module.exports = { lines };
