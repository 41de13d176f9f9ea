'use strict';

const { refusalOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// The pipeline flags (lab/outputs/flags.js), as every command that takes them parses them: a bad
// --out or an unwritable --junit is one usage line (exit 2) before anything runs. (--out
// otlp= gave "unexpected failure", exit 1; --junit naming a folder failed after the whole run.)
const COMMANDS = {
  scenario: ['ping', 'load', 'single'],
  capacity: ['ping'],
  study: ['course'],
};
const refusal = async (command, args) => {
  const run = require(`../../../lab/commands/${command}`);
  return refusalOf(async () => run([...COMMANDS[command], ...args, '--plan'], { log: () => {} }), { code: 'accepted' });
};

describe.each(Object.keys(COMMANDS))('%s', (command) => {
  test.each([['otlp='], ['otlp'], ['ftp://collector:4318'], ['prometheus=http://127.0.0.1:9090'], ['otlp=ftp://x']])(
    '--out %s is a usage error that says what was expected',
    async (value) => {
      const r = await refusal(command, ['--out', value]);
      expect(r).toMatchObject({ code: 'LAB_ERR_INVALID_VALUE', exit: 2 });
      expect(r.message).toMatch(/^invalid --out=".*" \(.+\): expected otlp=URL/);
    },
  );
});

test.each(['scenario', 'study'])(
  '%s --junit: a folder or a place nothing can be written is refused before the run',
  async (command) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junit-'));
    const folder = await refusal(command, ['--junit', dir]);
    expect(folder).toMatchObject({ code: 'LAB_ERR_INVALID_VALUE', exit: 2 });
    expect(folder.message).toMatch(/expected a file the lab can write; it is a folder/);
    const proc = await refusal(command, ['--junit', '/proc/lab-junit.xml']);
    expect(proc.message).toMatch(/nothing can be written in \/proc/);
    // A file in a folder still to be made is fine, and nothing is left of the check.
    expect((await refusal(command, ['--junit', path.join(dir, 'ci', 'junit.xml')])).code).toBe('accepted');
    expect(fs.readdirSync(dir)).toEqual([]);
  },
);
