'use strict';

const { runtimeOfState } = require('../runtime');
const StateFile = require('../runtime/state-file');
const { defineCommand } = require('../terminal/flags');
const { STATE } = require('../topology/context');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');

const USAGE = 'usage: npm run down [-- --state-dir DIR] [--json]';
const COMMAND = defineCommand({ usage: USAGE, flags: STATE });

// Stops everything the lab started in a state folder, the recorded processes and any that
// carry the folder's token; running it again when nothing is up is fine.
async function down(argv, { log }) {
  const { help, values } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  holdDir(values['state-dir'], '--state-dir');
  const runtime = runtimeOfState({ stateDir: values['state-dir'] });
  // Said only when there is something to stop: "nothing was up" after "stopping the
  // deployment" read as a contradiction.
  const { state } = new StateFile(values['state-dir']).inspect();
  if (state || (runtime.isUp && runtime.isUp())) log('stopping the deployment');
  const stopping = runtime.down({ helpers: true });
  // A Ctrl-C during the stop waits for it to finish instead of leaving half of it running.
  own(() => stopping.catch(() => {}));
  const r = await stopping;
  if (values.json) return { stdout: JSON.stringify(r) };
  const lines = [];
  if (r.stateError) lines.push(`state.json was unreadable (${r.stateError}); looked for the lab's processes instead`);
  for (const s of r.stale || []) lines.push(`left alone: ${s.name}'s pid ${s.pid} is now another process`);
  if (r.unrecorded?.length)
    lines.push(`stopped ${r.unrecorded.length} lab process(es) no record named: ${r.unrecorded.join(', ')}`);
  lines.push(
    r.deployment
      ? `stopped ${r.deployment.label} (${r.stopped.length} process(es))`
      : r.stopped?.length
        ? `stopped ${r.stopped.length} process(es)`
        : 'nothing was up',
  );
  if (r.groups?.removed.length) lines.push(`removed ${r.groups.removed.length} control group(s) of the deployment`);
  for (const f of r.groups?.failed || []) lines.push(`could not remove control group ${f.dir}: ${f.error}`);
  return { stdout: lines.join('\n'), exitCode: r.groups?.failed.length ? 1 : 0 };
}

down.usage = USAGE;
module.exports = down;
