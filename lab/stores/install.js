'use strict';

const { labError, installHint } = require('../../common/errors');
const { aptInstall } = require('../programs/install');

// A store's programs (lab/stores/): found, or installed from Debian's packages when the lab
// runs as root (postgresql, redis-server), as nginx is; else one line with the command.
async function ensureStore(store, log = () => {}) {
  const found = store.findBin();
  if (found) return found;
  let output = '';
  try {
    output = await aptInstall(store.package, `--with ${store.name}`, store.program, log);
  } catch {
    // not root: said below
  }
  const now = store.findBin();
  if (now) return now;
  throw labError(
    'LAB_ERR_STORE',
    store.name,
    `${store.program} is not installed${output ? ` (apt-get: ${output.trim().split('\n').pop()})` : ''}: ${installHint(store.package)}`,
  );
}

module.exports = { ensureStore };
