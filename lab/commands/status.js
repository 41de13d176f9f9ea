'use strict';

const path = require('node:path');
const { runtimeOfState } = require('../runtime');
const { defineCommand } = require('../terminal/flags');
const { STATE } = require('../topology/context');
const processTable = require('../terminal/process-table');
const { downHint } = require('../../common/errors');
const { readLock, LOCK } = require('../ownership/lock');
const { check } = require('../ownership/identity');

const USAGE = 'usage: npm run status [-- --json] [--state-dir DIR]';
const COMMAND = defineCommand({ usage: USAGE, flags: STATE });

// Looks only: reads state.json and /proc, starts nothing (not even pm2's daemon), and takes
// no lock; it says which command is at work in the folder, if one is.
async function status(argv) {
  const { help, values } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const stateDir = values['state-dir'];
  const s = await runtimeOfState({ stateDir }).status();
  if (values.json) return { stdout: JSON.stringify(s ?? { up: false }, null, 2) };
  const notes = [];
  const holder = readLock(path.join(stateDir, LOCK));
  const busy = holder && !holder.unreadable && check(holder) === 'alive' ? holder : null;
  if (busy)
    notes.push(
      `in use by \`${busy.command}\` (pid ${busy.pid}, since ${busy.startedAt}): what it starts may not be recorded yet`,
    );
  if (s?.stateError) notes.push(`state.json in ${stateDir} is unreadable (${s.stateError})`);
  if (s?.unrecorded?.length) {
    notes.push(
      `lab processes no record names are running: ${s.unrecorded.join(', ')} (${downHint(stateDir)} stops them)`,
    );
  }
  const stale = (s?.live || []).filter((r) => r.status === 'stale');
  // While a command is still starting things a record may lag behind its process (a title
  // set after the record was taken): not called stale then.
  if (!busy)
    for (const r of stale) notes.push(`${r.name}: pid ${r.pid} is now another process (stale record, left alone)`);
  if (busy && s?.live) s.live = s.live.map((r) => (r.status === 'stale' ? { ...r, status: 'starting' } : r));
  const tail = notes.length ? `\n\n${notes.join('\n')}` : '';
  if (!s || !s.deployment) {
    return {
      stdout: `${notes.length ? notes.join('\n') : 'nothing is up'} (start a deployment with: npm run deploy -- <deployment>)`,
    };
  }
  if (!s.up) return { stdout: `nothing is up (start a deployment with: npm run deploy -- <deployment>)${tail}` };
  return { stdout: `${s.deployment.label} is up at ${s.url} since ${s.startedAt}\n\n${processTable(s)}${tail}` };
}

status.usage = USAGE;
module.exports = status;
