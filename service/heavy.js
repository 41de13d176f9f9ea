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

// A fixed amount of CPU work: `rounds` rounds of 10,000 steps, however long they take. Unlike
// burn(), a process given less CPU (a cgroup cap, a busy machine) takes longer to finish it:
// what a CPU-capped server's response time should show (seed 004).
function work(rounds) {
  let x = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < 10000; i++) x = (x * 31 + i) % 1000003;
  }
  return x;
}

module.exports = burn;
module.exports.work = work;
