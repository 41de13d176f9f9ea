'use strict';

// `npm run characterize`'s words and flags: the one table its command line is checked with,
// read by the command (lab/commands/characterize.js), by a study that gives its run the options
// as a job (./job.js), and by the library.

const { defineCommand, flag } = require('../terminal/flags');
const { CONTEXT } = require('../topology/context');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { APP_FLAGS, APP_HELP } = require('../app/flags');

const USAGE = `usage: npm run characterize -- <bbox1|bbox2|URL|PATH> [options]
Finds whether a service is synchronous or asynchronous, its worker count and its delay,
from a closed-loop concurrency sweep (1, 2, 4, ... then bisection).
  bbox1, bbox2          the lab starts the black boxes with --key (and shows what it finds)
  URL                   any HTTP service answering GET
  PATH --app DIR        a path of your own service, which the lab deploys (single, behind
                        nginx) and takes down after (docs/your-service.md)
options:
${APP_HELP}
  --key KEY             the black boxes' group key (default: the course report's)
  --via direct|service  reach a named box directly (default) or through the service and nginx
  --delay-scale F       run the named boxes with their delays multiplied by F (quick checks)
  --max-concurrency N   the sweep's bound (default 32)
  --cycles N            how many delays each level is held for (default 4)
  --json                print the result as JSON
  --results-dir DIR     where the page goes (default results/)`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: ['target'] },
  flags: {
    ...CONTEXT,
    key: flag.string(),
    via: flag.enum(['direct', 'service']),
    'delay-scale': flag.factor(10),
    'max-concurrency': flag.int(2, 1000),
    cycles: flag.int(2, 100),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    ...DASHBOARD_FLAGS,
    ...APP_FLAGS,
  },
});

module.exports = { USAGE, COMMAND };
