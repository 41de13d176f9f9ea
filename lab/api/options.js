'use strict';

// The library's options, one object a call (lab.capacity({ endpoint, deployments, slo })),
// parsed by that command's own flag schema (lab/terminal/flags.js), here, before anything
// starts: the same refusals with the same codes as `node-deploy-lab capacity ...`, named as the
// caller wrote them. The parsed form is the command's job (lab/run/job.js): its child reads it
// as data and parses nothing again. (Each option is first written as the flag it stands for,
// `--name=value`, so that one parse checks an option as the command line checks a flag.)

const { labError } = require('../../common/errors');
const { suggest } = require('../names');
const { isHttp } = require('../capacity/forms');

// (An HTTP search's flag given to the signaling form: said as the command line says it.)
const httpFlagInSignal = (err) => require('../capacity/signal-flags').httpFlagInSignal(err) ?? err;

// What varies between the commands the library gives: the positional words, by name, in the
// command line's order, and the flag schema that checks the whole line.
const COMMANDS = {
  scenario: {
    words: ['endpoint', 'scenario', 'deployment'],
    schema: () => require('../commands/scenario/plan').COMMAND,
  },
  capacity: {
    words: ['endpoint'],
    // Two forms, picked as the command line picks them (lab/capacity/forms.js).
    schema: (argv) =>
      isHttp(argv) ? require('../capacity/plan').COMMAND : require('../capacity/signal-flags').COMMAND,
    refine: httpFlagInSignal,
  },
  signal: { words: [], schema: () => require('../capacity/signal-flags').COMMAND, refine: httpFlagInSignal },
  choose: { words: ['endpoint'], schema: () => require('../commands/choose/plan').COMMAND },
  study: { words: ['study'], schema: () => require('../commands/study/plan').COMMAND },
  characterize: { words: ['target'], schema: () => require('../run/characterize-flags').COMMAND },
  compare: { words: ['runs'], list: 'runs', schema: () => require('../commands/compare').COMMAND },
  down: { words: [], schema: () => require('../run/deploy-flags').DOWN },
};

// The library answers in JSON always; its help is docs/api.md.
const NOT_OPTIONS = new Set(['json', 'help']);

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const scalar = (v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

// -> the command line (flags as `--name=value`, so that a value that starts with a dash is
// never read as a flag), `--json` last. Throws the command's own LabError on a refusal.
const argvOf = (command, options = {}, env = process.env) => jobOfOptions(command, options, env).argv;

// -> { command (capacity's signaling form: signal), job (its parsed form as plain data), argv
// (what it stands for, as a command line) }. env: the child's environment (what a flag reads
// when not given, LAB_PORT_BASE, as the child would have).
function jobOfOptions(command, options = {}, env = process.env) {
  try {
    return lineOf(command, options, env);
  } catch (err) {
    // (The schema's own refusals, refined as the command refines them.)
    throw COMMANDS[command]?.refine?.(err) ?? err;
  }
}

function lineOf(command, options, env) {
  const def = COMMANDS[command];
  if (!def) throw new Error(`no library command ${command}`);
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw labError('LAB_ERR_OPTION_TYPE', command, 'options', 'one object of options');
  const words = [];
  for (const name of def.words) {
    const v = options[name];
    if (v === undefined || v === null) continue;
    const list = name === def.list ? (Array.isArray(v) ? v : [v]) : [v];
    for (const w of list) {
      if (!scalar(w) || String(w).startsWith('-'))
        throw labError(
          'LAB_ERR_OPTION_TYPE',
          command,
          name,
          `${def.list === name ? 'names' : 'a word'} (not starting with -)`,
        );
      words.push(String(w));
    }
  }
  const flags = [];
  for (const [key, v] of Object.entries(options)) {
    if (def.words.includes(key) || v === undefined || v === null) continue;
    flags.push([key, v]);
  }
  // The schema depends on the line for capacity (its two forms): read once with the words
  // and flag names, then each value checked by it.
  const draft = [...words, ...flags.map(([k]) => `--${kebab(k)}`)];
  const schema = def.schema(draft);
  // (capacity's two forms: the signaling one is the command signal's.)
  const named = command === 'capacity' && !isHttp(draft) ? 'signal' : command;
  const argv = [...words];
  for (const [key, v] of flags) {
    const name = kebab(key);
    const kind = NOT_OPTIONS.has(name) ? undefined : schema.kinds[name];
    if (!kind) {
      const near = suggest(
        name,
        schema.names.filter((n) => !NOT_OPTIONS.has(n)),
      );
      // (As the command line would have refused --name: another form's flag said as such.)
      const asTyped = labError('LAB_ERR_UNKNOWN_FLAG', `--${name}`, near, '');
      const refined = def.refine?.(asTyped);
      if (refined && refined !== asTyped) throw refined;
      throw labError(
        'LAB_ERR_UNKNOWN_FLAG',
        key,
        near,
        `(lab.${command}: its options are its flags in camelCase${near ? `, here ${camel(near)}` : ''})`,
      );
    }
    argv.push(...flagArgs(command, key, name, kind, v));
  }
  argv.push('--json');
  return { command: named, job: schema.jobOf(schema.parse(argv, env)), argv };
}

// One option as flags: true for a flag alone (false: left out), a list flag once per item,
// a value's list as comma text (--deployments single,replicated).
function flagArgs(command, key, name, kind, v) {
  if (kind === 'bool') {
    if (typeof v !== 'boolean') throw labError('LAB_ERR_OPTION_TYPE', command, key, 'true or false');
    return v ? [`--${name}`] : [];
  }
  // (A flag whose value may be left out, --dashboard [PORT]: true gives it alone.)
  if (v === true) return [`--${name}`];
  const items = Array.isArray(v) ? v : [v];
  if (!items.length || !items.every(scalar))
    throw labError('LAB_ERR_OPTION_TYPE', command, key, 'a string, a number, or an array of them');
  if (kind === 'list') return items.map((x) => `--${name}=${x}`);
  return [`--${name}=${items.join(',')}`];
}

module.exports = { argvOf, jobOfOptions, COMMANDS, kebab, camel };
