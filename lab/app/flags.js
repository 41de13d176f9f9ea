'use strict';

const { flag } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const { resolveApp } = require('./contract');
const { parseWith } = require('../stores');

// The flags of every command that deploys (deploy, scenario, study, characterize, capacity):
// your own service in place of the lab's reference one.
const APP_FLAGS = {
  app: flag.path(),
  'app-cmd': flag.string(),
  health: flag.pattern(/^\/\S*$/, 'a path starting with /, like /health'),
  // Its data stores (lab/stores/), its own set-up once they are up.
  with: { type: 'custom', parse: parseWith, expected: `the stores to run: postgres, redis, or postgres,redis` },
  'keep-data': flag.bool(),
  'app-setup': flag.string(),
  // How long each may take before the lab gives up on it (named in the message when it does).
  'app-setup-timeout': flag.duration(),
  'app-start-timeout': flag.duration(),
  'db-max-connections': flag.int(1, 10000),
  // The runtime probe (probe/preload.js) left out of the service's processes.
  'no-probe': flag.bool(),
};

const APP_HELP = `  --app DIR     your own Node service in place of the lab's: it listens on PORT from its
                environment, starts with its package.json "start" (else node <main>); its
                dependencies are installed from its lock file when missing (docs/your-service.md)
  --app-cmd CMD how it starts, when package.json does not say (e.g. "node server.js")
  --health PATH ready when PATH answers below 500 (default: when its port answers HTTP at all)
  --with postgres,redis  real PostgreSQL and Redis beside your service, shared by every replica
                and worker, their addresses in its environment (DATABASE_URL, PG*, REDIS_URL);
                a fresh database at every deploy (--keep-data keeps it, and down leaves it)
  --app-setup CMD  run once in your folder, with that environment, when the stores are up and
                before any replica starts (e.g. "npm run migrate")
  --app-setup-timeout D  how long the set-up may run before it is stopped (default 10m)
  --app-start-timeout D  how long each replica may take to answer its first request
                (default 30s, or LAB_APP_START_MS in milliseconds)
  --db-max-connections N  PostgreSQL's max_connections (default 100)
  --no-probe    no runtime probe in the service's processes (event loop, GC, heap: docs/runtime.md),
                for a service that forbids preloading code; those figures are then left out`;

// The resolved app of parsed flags, or null; --app-cmd and --health without --app are refused.
function appOf(values, { flag = 'app' } = {}) {
  if (!values.app) {
    for (const f of ['app-cmd', 'health', 'with', 'app-setup', 'app-setup-timeout', 'app-start-timeout']) {
      if (values[f] !== undefined)
        throw labError('LAB_ERR_FLAG_NEEDS', f, 'app', 'it is for your own service (--app DIR)');
    }
    return null;
  }
  for (const f of ['keep-data', 'db-max-connections']) {
    if (values[f] && !values.with) throw labError('LAB_ERR_FLAG_NEEDS', f, 'with', 'it is for the stores of --with');
  }
  if (values['db-max-connections'] !== undefined && !values.with.includes('postgres'))
    throw labError('LAB_ERR_FLAG_NEEDS', 'db-max-connections', 'with', "it is PostgreSQL's (--with postgres)");
  if (values['app-setup'] !== undefined && !String(values['app-setup']).trim())
    throw labError('LAB_ERR_FLAG_VALUE', 'app-setup', null, 'empty; give the line to run, like "npm run migrate"');
  if (values['app-setup-timeout'] !== undefined && values['app-setup'] === undefined)
    throw labError('LAB_ERR_FLAG_NEEDS', 'app-setup-timeout', 'app-setup', 'it is for the set-up of --app-setup');
  return resolveApp({
    dir: values.app,
    cmd: values['app-cmd'] ?? null,
    health: values.health ?? null,
    setupTimeoutS: values['app-setup-timeout'] ?? null,
    startTimeoutS: values['app-start-timeout'] ?? null,
    flag,
  });
}

module.exports = { APP_FLAGS, APP_HELP, appOf };
