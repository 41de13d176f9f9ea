'use strict';

const fs = require('node:fs');

// What a store's own log says over a window: a mark (its size) at the start, the lines of
// interest since. PostgreSQL's refusals at its connection limit ("FATAL: sorry, too many
// clients already") are counted: the classic failure of replication, each replica's pool
// asking for its share of max_connections.
const TOO_MANY = /sorry, too many clients already/;

function mark(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function linesSince(file, from, maxBytes = 8 << 20) {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = size < from ? 0 : from;
      const buf = Buffer.alloc(Math.min(size - start, maxBytes));
      fs.readSync(fd, buf, 0, buf.length, start);
      return buf.toString('utf8').split('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

const tooManyClients = {
  mark,
  since: (file, from) => linesSince(file, from).filter((l) => TOO_MANY.test(l)).length,
};

module.exports = { tooManyClients, linesSince, mark };
