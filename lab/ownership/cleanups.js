'use strict';

// What a lab command started and must stop: cleanups registered here run once, on normal
// exit of the command, on Ctrl-C (SIGINT), SIGTERM, or a failure.
const cleanups = [];
let running = null;

function own(fn) {
  cleanups.push(fn);
  return () => {
    const i = cleanups.indexOf(fn);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

function cleanup() {
  if (!running) {
    running = (async () => {
      while (cleanups.length) {
        const fn = cleanups.pop();
        try {
          await fn();
        } catch (err) {
          process.stderr.write(`lab: cleanup failed: ${err.message}\n`);
        }
      }
    })();
  }
  return running;
}

let onSignal = null;
function trapSignals(handler) {
  onSignal = handler;
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      if (interruptedBy) return; // a second Ctrl-C while cleaning up: keep cleaning
      interruptedBy = sig;
      process.stderr.write(`\nlab: ${sig}: stopping what this command started...\n`);
      Promise.resolve(onSignal && onSignal(sig))
        .then(cleanup)
        .finally(() => process.exit(130));
    });
  }
}
let interruptedBy = null;
const interrupted = () => interruptedBy;

module.exports = { own, cleanup, trapSignals, interrupted };
