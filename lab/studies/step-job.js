'use strict';

// A study's runs given their options as jobs (../run/job.js, issue 85): each step's own words
// and flags (the study's table, lab/studies/*.js) parsed once here by its command's flag table,
// what the user typed for the study passed on (the step's values, ./passed.js) and what the
// study decides for every run (its folder, its context, the study's --out) set as data;
// a group's deployment brought up and taken down the same way. Nothing is written back as text
// to be parsed again in the child.

const { jobInto, jobInput } = require('../run/job');
const { contextValues } = require('../topology/context');
const { outValues } = require('../outputs/flags');
const { COMMAND: SCENARIO } = require('../run/scenario-flags');
const { COMMAND: CAPACITY } = require('../capacity/plan');
const { isHttp } = require('../capacity/forms');
const { COMMAND: SIGNAL } = require('../capacity/signal-flags');
const { COMMAND: CHARACTERIZE } = require('../run/characterize-flags');
const { DEPLOY, DOWN } = require('../run/deploy-flags');

const JOBS = { scenario: SCENARIO, capacity: CAPACITY, signal: SIGNAL, characterize: CHARACTERIZE };
// (--out goes to the runs that measure HTTP: scenarios and capacity searches.)
const MEASURED = new Set(['scenario', 'capacity']);

// The command a step's words run: capacity's signaling form (--memory) is the command signal's
// (lab/capacity/forms.js tells the two apart, as the command line does).
const commandOf = (args) => (args[0] === 'capacity' && !isHttp(args.slice(1)) ? 'signal' : args[0]);

// A step's run, its job in its folder `dir`: -> the child's argv (['--job', FILE]).
// studyValues: the study's own parsed values (its --out); ctx: its context; stepValues: what
// the user typed for the study passed on to this run, as values (./passed.js).
function stepJob(args, studyValues, dir, ctx, stepValues = {}) {
  const command = commandOf(args);
  const schema = JOBS[command];
  if (!schema) throw new Error(`a study's run of ${args[0]}: no flag table to give it a job with`);
  const values = {
    ...stepValues,
    'run-dir': dir,
    json: true,
    ...contextValues(ctx),
    ...(MEASURED.has(command) ? outValues(studyValues) : {}),
  };
  return jobInto(dir, command, schema, schema.parsePart(args.slice(1)), values);
}

// A group's deployment (['deploy', words and flags...] of the study's table), in the study's
// context, its status as JSON: -> { args, input } for ../run/child.js (no folder of its own).
const groupUpJob = (deployArgs, ctx) =>
  jobInput('deploy', DEPLOY, DEPLOY.parsePart(deployArgs.slice(1)), { ...contextValues(ctx), json: true });

// The group taken down: -> { args, input }.
const groupDownJob = (ctx) => jobInput('down', DOWN, DOWN.parsePart([]), { 'state-dir': ctx.stateDir });

module.exports = { stepJob, groupUpJob, groupDownJob, commandOf };
