'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lastLines } = require('../../terminal/last-lines');

// The last lines a process of the deployment wrote (its pm2 logs), for a message.
function logTail(stateDir, name, lines = 8) {
  let text = '';
  for (const f of [`${name}.err.log`, `${name}.out.log`]) {
    const file = path.join(stateDir, 'logs', f);
    try {
      // (Its end only: a service may have logged megabytes.)
      const fd = fs.openSync(file, 'r');
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, 64 << 10));
      fs.readSync(fd, buf, 0, buf.length, size - buf.length);
      fs.closeSync(fd);
      const part = buf.toString('utf8').trim();
      if (part) text += `${part}\n`;
    } catch {
      // no such log
    }
  }
  return lastLines(text, { lines });
}

module.exports = { logTail };
