'use strict';

const fs = require('node:fs');

// A process's identity that a reused pid cannot fake: the pid, its start time in clock ticks
// since boot (/proc/PID/stat, field 22) and the boot it started in. The lab records this for
// every process it starts and signals a pid only while both still match. Its command line is
// recorded too, to be shown, but is not part of the proof: a process may rewrite it (Redis
// sets its title to `redis-server HOST:PORT` once it is up, and was then "left alone" by a
// down that had in fact stopped it), and a pid with the same start time in the same boot is
// the same process whatever it now calls itself.

function bootId() {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

// Fields after the command name, which may itself hold spaces and parentheses.
function statFields(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

// { pid, startTime, bootId, cmdline } of a living process (not a zombie), or null.
function identify(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const f = statFields(pid);
    if (f[0] === 'Z' || f[0] === 'X') return null;
    return { pid, startTime: f[19], bootId: bootId(), cmdline: cmdline(pid) ?? '' };
  } catch {
    return null;
  }
}

// 'alive' (the very process recorded), 'gone' (nothing, or a zombie, at that pid), or
// 'stale' (another process took the pid, or the machine rebooted): a stale entry is
// reported and never signalled.
function check(record) {
  if (!record || !record.pid) return 'gone';
  const now = identify(record.pid);
  if (!now) return 'gone';
  if (now.bootId !== record.bootId || now.startTime !== record.startTime) return 'stale';
  return 'alive';
}

// The environment a process started with (NAME=value pairs), or null when unreadable.
function environ(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return null;
  }
}

module.exports = { identify, check, cmdline, environ, statFields };
