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
      // A second Ctrl-C while cleaning up keeps cleaning (and says so); a third is the
      // user's choice to leave at once, whatever is still stopping.
      if (interruptedBy) {
        signalsSince += 1;
        if (signalsSince === 1) {
          process.stderr.write(
            `lab: still stopping what this command started (${sig} once more exits at once, leaving it)\n`,
          );
          return;
        }
        process.stderr.write(
          `lab: ${sig} again: exiting now; what was still stopping may be left (npm run down stops a deployment)\n`,
        );
        process.exit(130);
      }
      interruptedBy = sig;
      process.stderr.write(`\nlab: ${sig}: stopping what this command started...\n`);
      Promise.resolve(onSignal && onSignal(sig))
        .then(cleanup)
        .finally(() => process.exit(130));
    });
  }
}
let interruptedBy = null;
let signalsSince = 0;
const interrupted = () => interruptedBy;

module.exports = { own, cleanup, trapSignals, interrupted };
