'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The run directory's state.json: what is up, written by a runtime's `up` and read by
// `status`/`down` from any later process. Shared by every runtime.
class StateFile {
  constructor(stateDir) {
    this.dir = path.resolve(stateDir);
    this.file = path.join(this.dir, 'state.json');
  }

  read() {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return null;
    }
  }

  write(state) {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(this.file, `${JSON.stringify(state, null, 2)}\n`);
  }

  remove() {
    fs.rmSync(this.file, { force: true });
  }
}

module.exports = StateFile;
