'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { readMarker } = require('../ownership/dirs');

// The state folder's state.json: what is up and every process the lab started there, each
// with its identity (lab/ownership/identity.js). Written by a runtime's `up`, read by
// `status`/`down` from any later process; shared by every runtime. Written atomically (a
// temporary file renamed over it), so a reader never sees half a file.
class StateFile {
  constructor(stateDir) {
    this.dir = path.resolve(stateDir);
    this.file = path.join(this.dir, 'state.json');
  }

  // { state, error }: state null when there is none; error says why a file is unreadable.
  inspect() {
    let text;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      return { state: null, error: err.code === 'ENOENT' ? null : err.message };
    }
    try {
      const state = JSON.parse(text);
      if (!state || typeof state !== 'object' || !state.deployment) throw new Error('no deployment in it');
      return { state, error: null };
    } catch (err) {
      return { state: null, error: err.message.replace(/\s+/g, ' ').slice(0, 200) };
    }
  }

  // The state, or null when there is none; an unreadable file throws LAB_ERR_STATE.
  read() {
    const { state, error } = this.inspect();
    if (error) throw labError('LAB_ERR_STATE', this.file, error);
    return state;
  }

  write(state) {
    fs.mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    fs.renameSync(tmp, this.file);
  }

  remove() {
    fs.rmSync(this.file, { force: true });
  }

  // The token the lab's processes of this folder carry (null before the folder is claimed).
  token() {
    return readMarker(this.dir)?.token ?? null;
  }
}

module.exports = StateFile;
