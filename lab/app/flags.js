'use strict';

const { flag } = require('../cli/flags');
const { labError } = require('../../common/errors');
const { resolveApp } = require('./contract');

// The flags of every command that deploys (deploy, scenario, study, characterize, capacity):
// your own service in place of the lab's reference one.
const APP_FLAGS = {
  app: flag.path(),
  'app-cmd': flag.string(),
  health: flag.pattern(/^\/\S*$/, 'a path starting with /, like /health'),
};

const APP_HELP = `  --app DIR     your own Node service in place of the lab's: it listens on PORT from its
                environment, starts with its package.json "start" (else node <main>); its
                dependencies are installed from its lock file when missing (docs/your-service.md)
  --app-cmd CMD how it starts, when package.json does not say (e.g. "node server.js")
  --health PATH ready when PATH answers below 500 (default: when its port answers HTTP at all)`;

// The resolved app of parsed flags, or null; --app-cmd and --health without --app are refused.
function appOf(values) {
  if (!values.app) {
    for (const f of ['app-cmd', 'health']) {
      if (values[f] !== undefined) throw labError('LAB_ERR_USAGE', `--${f} is for your own service: add --app DIR`);
    }
    return null;
  }
  return resolveApp({ dir: values.app, cmd: values['app-cmd'] ?? null, health: values.health ?? null });
}

module.exports = { APP_FLAGS, APP_HELP, appOf };
