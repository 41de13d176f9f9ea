'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { identify, check } = require('./identity');
const { selfAndAncestors } = require('./scan');
const { own } = require('./cleanups');

// One lab command at a time per folder (a state folder, a study folder). Two commands on
// one folder lost deployments and mixed results: a second deploy started a second pm2
// daemon on the same pm2 home, and its Ctrl-C stopped the first one's deployment. The lock
// is a file in the folder naming its holder by identity (lab/ownership/identity.js): a
// holder that died (SIGKILL, a crash) is told apart from a live one by its pid, start time
// and boot, so its stale lock is taken over safely, and a pid that was reused never holds
// it. A command run by the holder itself (a study's runs, on the study's state folder)
// goes on under its ancestor's lock.
const { LOCK } = require('./dirs');

function readLock(file) {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8'));
    return holder && typeof holder === 'object' && Number.isInteger(holder.pid) ? holder : { unreadable: true };
  } catch (err) {
    return err.code === 'ENOENT' ? null : { unreadable: true };
  }
}

const since = (iso) => {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
};

// Takes the lock of `dir` for this process until release() (or exit). `what` names the
// folder in messages (--state-dir, --dir); `command` is what the holder is doing, shown to
// whoever finds the folder taken. Throws LAB_ERR_LOCKED (exit 2) when a live command holds
// it, touching nothing. The folder is created when missing and removed again on release if
// the lock was all it held.
function lockDir(dir, what, command = process.argv.slice(2).join(' ')) {
  const abs = path.resolve(dir);
  const file = path.join(abs, LOCK);
  const created = !fs.existsSync(abs);
  fs.mkdirSync(abs, { recursive: true });
  const me = { ...identify(process.pid), command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return { file, release: () => release(file, me, abs, created), reentrant: false };
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const holder = readLock(file);
    if (!holder) continue; // released meanwhile: try again
    const state = holder.unreadable ? 'gone' : check(holder);
    if (state === 'alive') {
      if (selfAndAncestors().has(holder.pid)) return nested(abs, me);
      throw labError('LAB_ERR_LOCKED', what, abs, describe(holder));
    }
    // Its holder is gone, but a command it ran may still be at work here (a study killed
    // with SIGKILL leaves its running scenario): that one holds the folder now.
    const child = liveNested(abs);
    if (child) throw labError('LAB_ERR_LOCKED', what, abs, describe(child));
    takeOver(file, holder);
  }
  throw labError('LAB_ERR_LOCKED', what, abs, 'another command that keeps taking and releasing it');
}

const describe = (holder) =>
  `\`${holder.command || '(unknown)'}\` (pid ${holder.pid}, running for ${since(holder.startedAt)})`;

// A command run under its ancestor's lock (a study's scenario) leaves its own mark beside
// it, `.lab-lock.<pid>`, so that the folder stays held while it lives even if the ancestor
// dies: before it, `down` took a killed study's stale lock and stopped the study's running
// child.
function nested(dir, me) {
  const file = path.join(dir, `${LOCK}.${me.pid}`);
  fs.writeFileSync(file, `${JSON.stringify(me)}\n`);
  return {
    file,
    release: () => {
      const holder = readLock(file);
      if (holder && holder.pid === me.pid && holder.startTime === me.startTime) fs.rmSync(file, { force: true });
    },
    reentrant: true,
  };
}

// The live nested holder of `dir` that is not this command or one of its ancestors, if any;
// the marks of dead ones are removed.
function liveNested(dir) {
  const mine = selfAndAncestors();
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(`${LOCK}.`) || !/^\d+$/.test(name.slice(LOCK.length + 1))) continue;
    const file = path.join(dir, name);
    const holder = readLock(file);
    if (holder && !holder.unreadable && check(holder) === 'alive') {
      if (!mine.has(holder.pid)) return holder;
    } else fs.rmSync(file, { force: true });
  }
  return null;
}

// A stale lock (its holder is gone, or its file half written) is moved aside and removed.
// Between reading it and moving it another command may have taken it over already: what
// was moved is read again, and a live holder's lock is put back.
function takeOver(file, stale) {
  const aside = `${file}.${process.pid}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if (err.code === 'ENOENT') return;
    throw err;
  }
  const moved = readLock(aside);
  const same = stale.unreadable ? !moved || moved.unreadable : moved && moved.pid === stale.pid;
  if (!same && moved && !moved.unreadable && check(moved) === 'alive') {
    try {
      fs.linkSync(aside, file);
    } catch {
      // someone else holds it now; they win
    }
  }
  fs.rmSync(aside, { force: true });
}

function release(file, me, dir, created) {
  const holder = readLock(file);
  if (holder && holder.pid === me.pid && holder.startTime === me.startTime) fs.rmSync(file, { force: true });
  if (created) {
    try {
      fs.rmdirSync(dir); // only when empty: the lock was all this command left there
    } catch {
      // it holds the command's results
    }
  }
}

// Holds the lock of `dir` for the rest of this command: released by its cleanups, which
// run on exit, Ctrl-C and failure alike (lab/ownership/cleanups.js).
function holdDir(dir, what) {
  const lock = lockDir(dir, what);
  own(lock.release);
  return lock;
}

module.exports = { lockDir, holdDir, readLock, LOCK };
