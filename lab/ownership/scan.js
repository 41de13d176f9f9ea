'use strict';

const fs = require('node:fs');
const { environ, statFields } = require('./identity');

// The variable every process the lab starts carries: LAB_OWNER=<the state folder's token>.
// The token is random and kept in the state folder's marker, so a process that carries it
// was started by the lab for that folder: a user's shell that merely exports LAB_STATE_DIR
// does not. This is what lets `down` find the lab's processes when state.json is gone.
const VAR = 'LAB_OWNER';

function allPids() {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

// This process and its ancestors: a lab command started from a process that carries the
// token (a study's runs, a test) must never find itself or its parents.
function selfAndAncestors() {
  const out = new Set();
  let pid = process.pid;
  while (pid > 1 && !out.has(pid)) {
    out.add(pid);
    try {
      pid = Number(statFields(pid)[1]);
    } catch {
      break;
    }
  }
  return out;
}

// The pids (living, not zombies) whose environment carries `token`, and their descendants.
// With `helpers`, also those of a command's own helpers (lab/ownership/adopt.js helperEnv).
function findOwned(token, { helpers = true } = {}) {
  if (!token) return [];
  const wanted = [`${VAR}=${token}`, ...(helpers ? [`${VAR}=${token}:run`] : [])];
  const skip = selfAndAncestors();
  const parentOf = new Map();
  const state = new Map();
  for (const pid of allPids()) {
    try {
      const f = statFields(pid);
      parentOf.set(pid, Number(f[1]));
      state.set(pid, f[0]);
    } catch {
      // gone meanwhile
    }
  }
  const owned = new Set();
  for (const pid of parentOf.keys()) {
    if (skip.has(pid)) continue;
    const env = environ(pid);
    if (env && wanted.some((w) => env.includes(w))) owned.add(pid);
  }
  // Descendants: a process that rewrote its environment area (nginx's workers set their
  // title over it) is still the child of one that carries the token.
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!owned.has(pid) && owned.has(ppid) && !skip.has(pid)) {
        owned.add(pid);
        grew = true;
      }
    }
  }
  return [...owned].filter((pid) => state.get(pid) !== 'Z' && state.get(pid) !== 'X').sort((a, b) => a - b);
}

module.exports = { findOwned, selfAndAncestors, VAR };
