'use strict';

// Calls onLine for each complete line of a stream (newline-delimited JSON on both sides of
// the hub's connections); a partial last line waits for the rest, up to maxBytes: a peer
// that sends more without a newline is cut off (onOverflow), instead of being buffered
// without bound (32 MiB without a newline once cost the hub 14.5 s and 130 MiB).
function lines(stream, onLine, { maxBytes = Infinity, onOverflow = () => stream.destroy() } = {}) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    rest += chunk;
    let at;
    while ((at = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, at);
      rest = rest.slice(at + 1);
      if (line.length > maxBytes) return overflow();
      if (line) onLine(line);
      if (stream.destroyed) return undefined;
    }
    if (rest.length > maxBytes) return overflow();
    return undefined;
  });
  function overflow() {
    rest = '';
    onOverflow();
  }
}

module.exports = { lines };
