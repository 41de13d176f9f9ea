'use strict';

const { labError } = require('../../common/errors');

// The data stores a deployment may have beside your service (--with postgres,redis): one
// file each in this folder, read into one table. Each is a node of the deployment's graph
// (lab/topology/graph.js), shared by every replica and worker, started before them; its
// address is given to your service in the environment each store names (DATABASE_URL,
// REDIS_URL...).
//   name, role, what       its --with name, its graph role, its name in words
//   package, program       Debian's package and the program it installs
//   port                   its port's name in lab/topology/ports.js
//   findBin()              the folder of its programs, or null
//   reachable(dir)         whether its data can live there (PostgreSQL's own user must get in)
//   prepare({ bin, dir, fresh }), command({...}), ready({...}), init({...}), env({ host, port })
const STORES = Object.freeze({ postgres: require('./postgres'), redis: require('./redis') });

// --with a,b: the stores, each once, in a fixed order (the database first).
function parseWith(text) {
  const names = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length)
    throw labError('LAB_ERR_USAGE', `--with ${text}: name one or more of ${Object.keys(STORES).join(', ')}`);
  for (const n of names) {
    if (!STORES[n]) {
      throw labError('LAB_ERR_USAGE', `--with ${n}: not a store the lab runs (${Object.keys(STORES).join(', ')})`);
    }
  }
  return Object.keys(STORES).filter((n) => names.includes(n));
}

// The environment your service gets from the stores of a deployment: { NAME: value }.
function storesEnv(stores, addressOf) {
  const env = {};
  for (const name of stores) Object.assign(env, STORES[name].env(addressOf(name)));
  return env;
}

module.exports = { STORES, parseWith, storesEnv };
