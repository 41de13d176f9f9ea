'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tooManyClients } = require('../../../lab/stores/logs');

test('the refusals counted are those written after the mark, also when the log was started over', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-log-'));
  const file = path.join(dir, 'pg.log');
  const refusal = 'FATAL:  sorry, too many clients already\n';
  try {
    expect(tooManyClients.mark(file)).toBe(0);
    expect(tooManyClients.since(file, 0)).toBe(0);
    fs.writeFileSync(file, `LOG: ready\n${refusal}`);
    const at = tooManyClients.mark(file);
    fs.appendFileSync(file, `${refusal}LOG: checkpoint\n${refusal}`);
    expect(tooManyClients.since(file, at)).toBe(2);
    // a log shorter than the mark was started over: all of it counts
    fs.writeFileSync(file, refusal);
    expect(tooManyClients.since(file, at)).toBe(1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
