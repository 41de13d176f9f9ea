'use strict';

// The CPU work of /heavy and /work, as steps for service/cpu-gate.js: each step is a little
// work (10,000 arithmetic steps, ~0.04 ms here) and says whether the job is done.
const STEPS = 10000;
function spin() {
  let x = 0;
  for (let i = 0; i < STEPS; i++) x = (x * 31 + i) % 1000003;
  return x;
}

// /heavy: burns the CPU for `ms` milliseconds of wall time from its start, however much
// work that is. (Its start is its first step, not the request's arrival: a clock started when
// the steps were made ran while the request waited for the CPU, so a request that waited
// burned less than asked, and one that did not answered tookMs 49 for ms=50.)
function burnSteps(ms) {
  let end = null;
  return () => {
    end ??= performance.now() + ms;
    spin();
    return performance.now() >= end;
  };
}

// /work: a fixed amount of CPU work, `rounds` rounds, however long they take. Unlike
// /heavy, a process given less CPU (a cgroup cap, a busy machine) takes longer to finish it:
// what a CPU-capped server's response time should show (seed 004).
function workSteps(rounds) {
  let done = 0;
  let x = 0;
  const step = () => {
    x = (x + spin()) % 1000003;
    done += 1;
    return done >= rounds;
  };
  step.result = () => x;
  return step;
}

// Both at once, blocking, for callers outside a request (benchmarks).
function burn(ms) {
  const step = burnSteps(ms);
  while (!step());
}
function work(rounds) {
  const step = workSteps(rounds);
  while (!step());
  return step.result();
}

module.exports = burn;
module.exports.work = work;
module.exports.burnSteps = burnSteps;
module.exports.workSteps = workSteps;
