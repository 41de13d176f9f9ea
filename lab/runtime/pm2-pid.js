'use strict';

const fs = require('node:fs');
const path = require('node:path');

// pm2 rewrites the pid_file it is given: "X.pid" (or "X-N.pid") becomes "X-<pm_id>.pid"
// (pm2/lib/God.js). Given "replica-1.pid" with pm_id 2 it wrote "replica-2.pid": another
// replica's name. So the lab hands pm2 "<name>.app.pid", whose stem never ends in -N, and finds
// "<name>.app-<pm_id>.pid" back without asking pm2 for the id.
const pidFileFor = (pm2Home, name) => path.join(pm2Home, `${name}.app.pid`);

// The pid pm2 last wrote for app `name`, or null when it wrote none.
function readPm2Pid(pm2Home, name) {
  const prefix = `${name}.app-`;
  let best = null;
  let entries;
  try {
    entries = fs.readdirSync(pm2Home);
  } catch {
    return null;
  }
  for (const f of entries) {
    if (!f.startsWith(prefix) || !/^\d+\.pid$/.test(f.slice(prefix.length))) continue;
    try {
      const file = path.join(pm2Home, f);
      const mtime = fs.statSync(file).mtimeMs;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (pid > 0 && (!best || mtime > best.mtime)) best = { pid, mtime };
    } catch {
      // removed meanwhile
    }
  }
  return best ? best.pid : null;
}

module.exports = { pidFileFor, readPm2Pid };
