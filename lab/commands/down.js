'use strict';

const { runtimeOfState } = require('../runtime');
const StateFile = require('../runtime/state-file');
// (Its flags: ../run/deploy-flags.js, read by a study's group too.)
const { DOWN: COMMAND, DOWN_USAGE: USAGE } = require('../run/deploy-flags');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { downHint } = require('../../common/errors');

// Stops everything the lab started in a state folder, the recorded processes and any that
// carry the folder's token; running it again when nothing is up is fine.
async function down(argv, { log }) {
  const { help, values } = COMMAND.read(argv);
  if (help) return { stdout: USAGE };
  holdDir(values['state-dir'], '--state-dir');
  const runtime = runtimeOfState({ stateDir: values['state-dir'] });
  // Said only when there is something to stop: "nothing was up" after "stopping the
  // deployment" read as a contradiction.
  const { state } = new StateFile(values['state-dir']).inspect();
  if (state || (runtime.isUp && runtime.isUp())) log('stopping the deployment');
  const stopping = runtime.down({ helpers: true, deleteData: values['delete-data'] });
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
  lines.push(...storeLines(r.stores || [], Boolean(r.deployment || r.stopped?.length), values['state-dir']));
  if (r.groups?.removed.length) lines.push(`removed ${r.groups.removed.length} control group(s) of the deployment`);
  for (const f of r.groups?.failed || []) lines.push(`could not remove control group ${f.dir}: ${f.error}`);
  return { stdout: lines.join('\n'), exitCode: r.groups?.failed.length ? 1 : 0 };
}

// What became of the stores' folders: kept data named with the way to delete it, and a
// folder removed when nothing was up (an interrupted deploy's) said, not done in silence.
function storeLines(stores, wasUp, stateDir) {
  const lines = [];
  for (const s of stores) {
    if (!s.removed)
      lines.push(
        `kept: ${s.name}'s data (--keep-data) stays in ${s.dir}; \`${downHint(stateDir, '--delete-data')}\` deletes it`,
      );
    else if (s.kept) lines.push(`deleted ${s.name}'s kept data in ${s.dir} (--delete-data)`);
    else if (!wasUp) lines.push(`removed ${s.name}'s folder ${s.dir}, left by a deploy that did not finish`);
  }
  return lines;
}

down.usage = USAGE;
// (Its flags' schema, which the library validates its options with: lab/api/options.js.)
module.exports = down;
