'use strict';

const httpCapacity = require('./http');

// `npm run capacity -- <endpoint|path>`: the highest arrival rate each deployment holds under
// an SLO (./http.js). How many signaling connections one process holds under a memory limit,
// seed 002's question, is a command of its own, `npm run signal` (lab/commands/signal/); the
// dispatcher (lab/cli) sends `capacity --memory ...` there, as it always went.
const SIGNAL_HELP = `The signaling connections' estimate (--memory, --levels, --max, --no-verify) is its own
command: npm run signal -- --help (npm run capacity -- --memory ... reaches it too).`;

// (argv: a command line, or a parent's job: lab/run/job.js, the HTTP search's own.)
async function capacity(argv, o) {
  if (Array.isArray(argv) && (argv.includes('--help') || argv.includes('-h')))
    return { stdout: `${httpCapacity.usage}\n\n${SIGNAL_HELP}` };
  return httpCapacity(argv, o);
}

capacity.usage = `${httpCapacity.usage}\n\n${SIGNAL_HELP}`;
module.exports = capacity;
