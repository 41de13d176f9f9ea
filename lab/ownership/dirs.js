'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');

// The lab deletes only folders it created. A folder it creates gets a marker file; a folder
// without one that is not empty belongs to someone else and is refused, never cleaned.
const MARKER = '.lab-owned';
// The lock of the command using a folder (lab/ownership/lock.js): never content, never
// deleted by a reset.
const LOCK = '.lab-lock';
// The lock and the nested holders' files beside it (`.lab-lock.<pid>`, lab/ownership/lock.js).
const isLockFile = (name) => name === LOCK || name.startsWith(`${LOCK}.`);
// A child run's job (lab/run/job.js), written into the folder its parent claimed for it before
// the child starts: what it was asked, kept when the run empties its folder.
const JOB = '.lab-job.json';
const kept = (name) => name === MARKER || name === JOB || isLockFile(name);

function readMarker(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
  } catch {
    return null;
  }
}

function isEmpty(dir) {
  return fs.readdirSync(dir).every(isLockFile);
}

// Makes `dir` the lab's: creates it (marked), marks it when it is empty, accepts it when it
// is marked; a non-empty unmarked folder (or a file) throws LAB_ERR_NOT_OURS naming `what`.
// Returns the marker ({ token, createdAt }): the token is what the lab's processes carry.
function claimDir(dir, what) {
  const abs = path.resolve(dir);
  let stat = null;
  try {
    stat = fs.statSync(abs);
  } catch {
    // does not exist yet
  }
  if (stat && !stat.isDirectory()) throw labError('LAB_ERR_NOT_OURS', what, abs, 'it is a file');
  if (stat) {
    const marker = readMarker(abs);
    if (marker) return marker;
    if (!isEmpty(abs)) throw labError('LAB_ERR_NOT_OURS', what, abs, 'it is not empty and the lab did not create it');
  } else fs.mkdirSync(abs, { recursive: true });
  const marker = {
    by: 'node-deploy-lab',
    token: crypto.randomBytes(12).toString('hex'),
    createdAt: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(abs, MARKER), `${JSON.stringify(marker)}\n`);
  return marker;
}

// Claims `dir` and empties it, keeping its marker.
function resetDir(dir, what) {
  const marker = claimDir(dir, what);
  for (const name of fs.readdirSync(dir)) {
    if (!kept(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  return marker;
}

// Removes `dir` when the lab created it; anything else is left alone. Returns whether it did.
function removeOwnedDir(dir) {
  if (!readMarker(dir)) return false;
  fs.rmSync(dir, { recursive: true, force: true });
  return true;
}

// Refuses early (before anything starts) a folder the lab could not claim later.
function assertClaimable(dir, what) {
  const abs = path.resolve(dir);
  try {
    const stat = fs.statSync(abs);
    if (!stat.isDirectory()) throw labError('LAB_ERR_NOT_OURS', what, abs, 'it is a file');
    if (!readMarker(abs) && !isEmpty(abs))
      throw labError('LAB_ERR_NOT_OURS', what, abs, 'it is not empty and the lab did not create it');
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}

module.exports = {
  claimDir,
  resetDir,
  removeOwnedDir,
  assertClaimable,
  readMarker,
  isLockFile,
  kept,
  MARKER,
  LOCK,
  JOB,
};
