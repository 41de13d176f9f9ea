'use strict';

const { runtimeOfState } = require('../runtime');
const { parseCommandLine, labContext } = require('../options');
const processTable = require('../process-table');

const USAGE = 'usage: npm run status [-- --json] [--state-dir DIR]';

async function status(argv) {
  const { values } = parseCommandLine(argv, {}, USAGE);
  if (values.help) return { stdout: USAGE };
  const ctx = labContext(values);
  const s = await runtimeOfState({ stateDir: ctx.stateDir }).status();
  if (values.json) return { stdout: JSON.stringify(s ?? { up: false }, null, 2) };
  if (!s || !s.up) return { stdout: 'nothing is up (start a deployment with: npm run deploy -- <deployment>)' };
  return {
    stdout: `${s.deployment.label} is up at ${s.url} since ${s.startedAt}\n\n${processTable(s)}`,
  };
}

status.usage = USAGE;
module.exports = status;
