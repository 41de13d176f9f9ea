'use strict';

const { endpointOf } = require('../../artillery/scenarios');
const { warmCache } = require('../generators/warm-cache');
const { own } = require('../ownership/cleanups');

// --warm-cache: every object once through the entry, the CPU caps lifted meanwhile (a cache
// warmed at 1% of a core would take minutes) and put back before the measured run.
async function warm(run) {
  const { p, log, runtime, state } = run;
  const { objects, path: base } = endpointOf(p.endpoint);
  const caps = runtime?.liftCpuCaps ? runtime.liftCpuCaps(state) : { lifted: [], restore: () => {} };
  const restore = own(() => caps.restore());
  log(
    `warming the caches: ${objects.count} objects through the entry${caps.lifted.length ? ` (CPU caps lifted: ${caps.lifted.join(', ')})` : ''}`,
  );
  try {
    const w = await warmCache({
      target: run.target,
      path: base,
      objects,
      onProgress: (n, of) => log(`  warm-up: ${n} of ${of}`),
    });
    log(`warmed: ${w.ok} of ${w.objects} objects in ${w.seconds} s${w.failed ? `, ${w.failed} failed` : ''}`);
    run.warmup = { ...w, capsLifted: caps.lifted };
  } finally {
    caps.restore();
    restore();
  }
}

module.exports = { warm };
