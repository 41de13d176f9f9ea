'use strict';

const httpCapacity = require('./http');
const signalCapacity = require('./signal');

// `npm run capacity`: what a deployment can take. Two questions, two forms:
//   an endpoint, a path of your service or --script: the highest arrival rate each deployment
//   holds under an SLO (lab/commands/capacity/http.js);
//   otherwise (--memory, --levels...): how many signaling connections one process holds under a
//   memory limit, seed 002's question (lab/commands/capacity/signal.js).
const SIGNAL_FLAGS = ['--memory', '--levels', '--ramp-per-s', '--max', '--no-verify'];

function isHttp(argv) {
  const flagged = (names) => argv.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
  if (flagged(SIGNAL_FLAGS)) return false;
  if (flagged(['--script', '--slo', '--deployments'])) return true;
  // A word that is not a flag's value: the endpoint.
  const alone = ['--json', '--plan', '--no-verify'];
  return argv.some(
    (a, i) =>
      !a.startsWith('-') &&
      (i === 0 || !argv[i - 1].startsWith('-') || argv[i - 1].includes('=') || alone.includes(argv[i - 1])),
  );
}

async function capacity(argv, o) {
  if (argv.includes('--help') || argv.includes('-h')) {
    return { stdout: `${httpCapacity.usage}\n\n${signalCapacity.usage}` };
  }
  return isHttp(argv) ? httpCapacity(argv, o) : signalCapacity(argv, o);
}

capacity.usage = `${httpCapacity.usage}\n\n${signalCapacity.usage}`;
module.exports = capacity;
