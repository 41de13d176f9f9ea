'use strict';

const path = require('node:path');
const { flag } = require('../terminal/flags');
const { WORK } = require('../paths');
const { DEFAULT_BASE } = require('./ports');

// Where a deployment's state lives and which ports and address it takes: the commands that
// deploy or look at a deployment add these flags. Each falls back on an environment variable;
// the port base's default is planPorts' own (./ports.js).
const CONTEXT = {
  'port-base': { ...flag.int(1024, 32767), env: 'LAB_PORT_BASE', default: DEFAULT_BASE },
  host: { ...flag.host(), env: 'LAB_HOST', default: '127.0.0.1' },
  'state-dir': { ...flag.path(), env: 'LAB_STATE_DIR', default: path.join(WORK, '.lab') },
};
const STATE = { 'state-dir': CONTEXT['state-dir'] };

// The deployment context of parsed CONTEXT flags.
function contextOf(values) {
  return { portBase: values['port-base'], host: values.host, stateDir: values['state-dir'] };
}

// The same context as flags again, for a lab command run as a child (a capacity level, a
// study's run, a choice's sweep).
const contextArgs = (ctx) => ['--state-dir', ctx.stateDir, '--port-base', String(ctx.portBase), '--host', ctx.host];

// The same context as values, for a child run given its job (lab/run/job.js).
const contextValues = (ctx) => ({ 'state-dir': ctx.stateDir, 'port-base': ctx.portBase, host: ctx.host });

module.exports = { CONTEXT, STATE, contextOf, contextArgs, contextValues };
