'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { claimDir, removeOwnedDir, readMarker, kept: isKeptName } = require('../ownership/dirs');
const { STORES } = require('./index');

// Where a store's data lives on this host, and whether it is kept. Inside the state folder
// (stores/NAME), or, when the store's own user cannot get there (PostgreSQL as root, under a
// 0700 folder), in a folder of the lab's in /var/tmp named by the state folder's token. A
// store folder is the lab's own: a deploy makes it, and `down` removes it, even one a
// deploy left half-made when it was interrupted (initdb cut short), unless a deploy with
// --keep-data marked its data as kept (KEPT). Kept data is never dropped in silence: a deploy
// without --keep-data refuses to start over it, and `down --delete-data` deletes it.
const OUTSIDE = '/var/tmp';
const OUTSIDE_PREFIX = 'node-deploy-lab-stores-';
const KEPT = '.lab-kept';

const insideRoot = (stateDir) => path.join(stateDir, 'stores');
const outsideRoot = (token) => path.join(OUTSIDE, `${OUTSIDE_PREFIX}${token}`);

// The folder a store of this state folder uses now: { dir, outside }.
function folderOf(store, stateDir, token) {
  const inside = path.join(insideRoot(stateDir), store.name);
  if (store.reachable(inside)) return { dir: inside, outside: false };
  return { dir: path.join(outsideRoot(token), store.name), outside: true };
}

// Makes the folder's root the lab's (marked), before the store writes into it.
function claimFolder({ dir, outside }) {
  const root = path.dirname(dir);
  claimDir(root, outside ? 'the stores folder' : 'stores/ in --state-dir');
  if (outside) fs.chmodSync(root, 0o755);
}

// Every store folder of this state folder that exists, wherever it is: [{ name, dir, outside,
// kept }]. Only folders under a root the lab marked as its own.
function existingFolders(stateDir, token) {
  const out = [];
  const roots = [{ root: insideRoot(stateDir), outside: false }];
  if (token) roots.push({ root: outsideRoot(token), outside: true });
  for (const { root, outside } of roots) {
    if (!readMarker(root)) continue;
    for (const name of Object.keys(STORES)) {
      const dir = path.join(root, name);
      if (fs.existsSync(dir)) out.push({ name, dir, outside, kept: fs.existsSync(path.join(dir, KEPT)) });
    }
  }
  return out;
}

// The kept data of these stores (a deploy with --keep-data, since brought down): [{ name, dir,
// since }].
function keptData(stateDir, token, names) {
  return existingFolders(stateDir, token)
    .filter((f) => f.kept && names.includes(f.name))
    .sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name))
    .map((f) => ({ name: f.name, dir: f.dir, since: readKept(f.dir)?.since ?? null }));
}

function readKept(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, KEPT), 'utf8'));
  } catch {
    return null;
  }
}

// Marks a store's data as kept (--keep-data), once it is ready: a first deploy's own, or the
// data it found kept (its first date stays).
function markKept(dir) {
  if (fs.existsSync(path.join(dir, KEPT))) return;
  fs.writeFileSync(
    path.join(dir, KEPT),
    `${JSON.stringify({ by: 'node-deploy-lab', since: new Date().toISOString() })}\n`,
  );
}

// Removes the store folders of this state folder, once their servers are gone: every one but
// kept data, and that too with deleteKept. Returns [{ name, dir, kept, removed }].
function removeFolders(stateDir, token, { deleteKept = false } = {}) {
  const out = [];
  for (const f of existingFolders(stateDir, token)) {
    if (f.kept && !deleteKept) {
      out.push({ name: f.name, dir: f.dir, kept: true, removed: false });
      continue;
    }
    fs.rmSync(f.dir, { recursive: true, force: true });
    out.push({ name: f.name, dir: f.dir, kept: f.kept, removed: true });
  }
  // The folder in /var/tmp goes with its last store.
  const outside = token ? outsideRoot(token) : null;
  if (outside && readMarker(outside) && fs.readdirSync(outside).every(isKeptName)) removeOwnedDir(outside);
  return out;
}

module.exports = { folderOf, claimFolder, existingFolders, keptData, markKept, removeFolders, KEPT, OUTSIDE_PREFIX };
