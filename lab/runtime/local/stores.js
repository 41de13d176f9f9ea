'use strict';

const { labError } = require('../../../common/errors');
const { STORES } = require('../../stores');
const { ensureStore } = require('../../stores/install');
const storeFolders = require('../../stores/folders');
const { nodeOf } = require('../../topology/graph');
const { sleep } = require('../../ownership/procs');
const { logTail } = require('./log-tail');

// The local runtime's data stores (--with, lab/stores/): each one's program and folder before
// anything starts, its server ready before your service, its folders gone after (`rt`: the
// LocalRuntime, for its folder, its log and its interruptible steps).

// Each store's program (found, or installed as root) and its folder (lab/stores/folders.js):
// a fresh one unless --keep-data, whose data is marked kept once it is made.
async function prepareStores(rt, deployment, graph, token, { profile = false } = {}) {
  const out = {};
  const keep = deployment.storeOptions?.keepData === true;
  for (const name of deployment.stores || []) {
    const store = STORES[name];
    const bin = await rt.step(() => ensureStore(store, rt.log));
    const { dir, outside } = storeFolders.folderOf(store, rt.stateDir, token);
    storeFolders.claimFolder({ dir, outside });
    const ctx = {
      bin,
      dir,
      host: rt.host,
      port: nodeOf(graph, name).port,
      maxConnections: deployment.storeOptions?.maxConnections ?? 100,
      // Profiled (--profile): what each store spent its time on (lab/stores/statements.js).
      profile,
    };
    const had = keep && storeFolders.keptData(rt.stateDir, token, [name]).length > 0;
    if (!had) rt.log(`${name}: making a new database in ${dir}`);
    const prepared = await rt.step(() => store.prepare({ ...ctx, fresh: !had }));
    if (had && prepared.kept) rt.log(`${name}: its data kept from the last deploy (--keep-data), in ${dir}`);
    else if (keep) rt.log(`${name}: its data will be kept after down (--keep-data)`);
    if (keep) storeFolders.markKept(dir);
    out[name] = { store, ctx, fresh: !keep, outside };
  }
  return out;
}

// Refuses, before anything starts, a deploy that would start over data an earlier deploy
// kept (--keep-data): dropped without a word, it was a user's lost work.
function assertNoKeptData(rt, deployment) {
  if (!deployment.stores?.length || deployment.storeOptions?.keepData) return;
  const kept = storeFolders.keptData(rt.stateDir, rt.state.token(), deployment.stores);
  if (kept.length) throw labError('LAB_ERR_KEPT_DATA', kept, rt.stateDir);
}

// A store is ready when it answers (30 s at most), then made ready for your service.
async function waitStore(rt, name, s, pm2) {
  const deadline = Date.now() + (Number(process.env.LAB_STORE_START_MS) || 30000);
  for (;;) {
    if (await rt.step(() => s.store.ready(s.ctx))) break;
    const p = (await rt.step(() => pm2.list())).find((x) => x.name === name);
    const env = p?.pm2_env || {};
    if (!p || env.restart_time > 0 || ['errored', 'stopped'].includes(env.status) || Date.now() > deadline) {
      throw labError(
        'LAB_ERR_STORE',
        name,
        `${p && Date.now() <= deadline ? 'it exited at start' : `it did not answer within ${(Number(process.env.LAB_STORE_START_MS) || 30000) / 1000} s`}; its last lines:\n${logTail(rt.stateDir, name)}`,
      );
    }
    await sleep(200);
  }
  await rt.step(() => s.store.init(s.ctx));
}

// The stores' folders, once their servers are gone (lab/stores/folders.js): all but kept
// data, and that too with deleteData (down --delete-data). Found on disk, not in the state:
// a deploy interrupted during initdb had written no state yet, and left 39 MB behind.
function removeStores(rt, { deleteData = false } = {}) {
  return storeFolders.removeFolders(rt.stateDir, rt.state.token(), { deleteKept: deleteData });
}

module.exports = { prepareStores, assertNoKeptData, waitStore, removeStores };
