'use strict';

const { runtimeOfState } = require('../runtime');
const { parseCommandLine, labContext } = require('../options');

const USAGE = 'usage: npm run down [-- --state-dir DIR]';

// Stops everything the lab started; running it again when nothing is up is fine.
async function down(argv, { log }) {
  const { values } = parseCommandLine(argv, {}, USAGE);
  if (values.help) return { stdout: USAGE };
  const ctx = labContext(values);
  log('stopping the deployment');
  const r = await runtimeOfState({ stateDir: ctx.stateDir }).down();
  if (values.json) return { stdout: JSON.stringify(r) };
  return {
    stdout: r.deployment ? `stopped ${r.deployment.label} (${r.stopped.length} process(es))` : 'nothing was up',
  };
}

down.usage = USAGE;
module.exports = down;
