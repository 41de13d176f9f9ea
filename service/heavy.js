'use strict';

// Burns CPU on the calling thread for `ms` milliseconds. It deliberately never yields: the
// point of /heavy is that one process serves one of them at a time and everything else it
// was asked meanwhile waits behind it.
function burn(ms) {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 10000; i++) x = (x * 31 + i) % 1000003;
  }
  return x;
}

module.exports = burn;
