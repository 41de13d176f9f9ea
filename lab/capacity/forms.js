'use strict';

// `capacity` answers two questions (docs/signaling-and-capacity.md): an endpoint, a path of your
// service or --script is the HTTP search (lab/commands/capacity/); --memory, --levels and the
// rest of the signaling estimate's flags are seed 002's question, which is its own command,
// `signal` (lab/commands/signal/), and `capacity --memory ...` still reaches it. Which one a
// command line asks, read before either parses it: the dispatcher's choice (lab/cli) and the
// library's (lab/api).

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

module.exports = { isHttp, SIGNAL_FLAGS };
