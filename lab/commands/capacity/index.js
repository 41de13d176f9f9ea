'use strict';

const httpCapacity = require('./http');
const signalCapacity = require('./signal');
const { labError } = require('../../../common/errors');

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
  if (isHttp(argv)) return httpCapacity(argv, o);
  try {
    return await signalCapacity(argv, o);
  } catch (err) {
    throw httpFlagInSignal(err) ?? err;
  }
}

// A flag of the HTTP search given to the signaling form (capacity --memory 500M --verify-hold
// 10m): said as the other form's, with what picks each, not as an unknown option.
function httpFlagInSignal(err) {
  if (err.code !== 'LAB_ERR_UNKNOWN_FLAG') return null;
  const m = /unknown option (--[\w-]+)/.exec(err.message);
  const name = m?.[1].slice(2);
  if (!name || !httpCapacity.flags.includes(name)) return null;
  return labError(
    'LAB_ERR_FLAGS_EXCLUDE',
    name,
    'memory',
    `--${name} is the HTTP search's (capacity <endpoint> ...), and the signaling connections' estimate (--memory, --levels, --max) takes none of its flags: give an endpoint, a path or --script for the HTTP search, or leave --${name} out`,
  );
}

capacity.isHttp = isHttp;
capacity.httpFlagInSignal = httpFlagInSignal;
capacity.usage = `${httpCapacity.usage}\n\n${signalCapacity.usage}`;
module.exports = capacity;
