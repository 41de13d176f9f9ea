'use strict';

const { labError } = require('../../common/errors');
const { flag } = require('../terminal/flags');
const { readBounded } = require('./limits');

// Artillery's `run` flags for a script (--script FILE), with Artillery 2's meaning, read once
// here into the options lab/scenario/from-artillery.js applies in Artillery's order
// (node_modules/artillery/lib/util/prepare-test-execution-plan.js): the --config file merged
// over the script, the environment, -k, the payload (-p), the processor found beside the
// config, --overrides, --variables, then the config's templates; --dotenv before all of it,
// as Artillery loads it into its environment first; --scenario-name when virtual users pick.
const SCRIPT_FLAGS = Object.freeze({
  environment: { ...flag.string(), short: 'e' },
  overrides: flag.string(),
  config: { ...flag.path(), short: 'c' },
  // (As given: Artillery reads it from the working folder, or, when config.payload names a
  // path too, from the script's folder.)
  payload: { ...flag.string(), short: 'p' },
  variables: { ...flag.string(), short: 'v' },
  dotenv: flag.path(),
  'scenario-name': flag.string(),
  // Refused by name (scriptOptionsOf): said better by the lab's own flags.
  count: flag.string(),
});

// Artillery's -k: an https:// target's certificate not checked, said in the run. (A flag of
// its own: scenario takes it for a --target without a script too.)
const INSECURE_FLAG = Object.freeze({ insecure: { ...flag.bool(), short: 'k' } });

// The script flags of the commands that start scenario runs from a script (capacity, choose,
// the studies of your service): Artillery's, and -k.
const SCRIPT_RUN_FLAGS = Object.freeze({ ...SCRIPT_FLAGS, ...INSECURE_FLAG });
const SCRIPT_FLAG_NAMES = Object.freeze(Object.keys(SCRIPT_RUN_FLAGS).filter((f) => f !== 'count'));

const SCRIPT_HELP = `  Artillery's run flags, with Artillery's meaning, for --script:
  -e, --environment NAME  config.environments.NAME merged into config
  --overrides JSON        merged into the script (lists replaced)
  -c, --config FILE       the script's config kept apart, merged over the script
  -p, --payload FILE      the CSV of a config.payload that names no path
  -v, --variables JSON    set in config.variables (and usable in config's templates)
  --dotenv FILE           KEY=VALUE lines, for {{ $env.KEY }} (the environment wins)
  --scenario-name NAME    every virtual user runs that scenario (its name, or a regex of it)`;

// The same, for a command that passes them on to the runs it starts.
const SCRIPT_RUN_HELP = `${SCRIPT_HELP}
  -k, --insecure          an https:// target's certificate is not checked
  (each run this command starts reads the script with them, as scenario --script would)`;

const DOTENV_BYTES = 64 * 1024;

// A JSON mapping given on the command line (--variables, --overrides).
// (The value typed is named, cut to 80 characters: `--overrides '[1,2]'` was once reported as
// a field of the script.)
function jsonMapping(name, raw) {
  const typed = `--${name} '${String(raw).length > 80 ? `${String(raw).slice(0, 77)}...` : raw}'`;
  let v;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw labError('LAB_ERR_INVALID_VALUE', `${typed}: not JSON (${err.message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw labError('LAB_ERR_INVALID_VALUE', `${typed}: expected a JSON object, like '{"name": "value"}'`);
  return v;
}

// A .env file as Artillery reads it (dotenv's own parser): KEY=VALUE lines.
function readDotenv(file) {
  const text = readBounded(file, DOTENV_BYTES, (why) => {
    throw labError('LAB_ERR_FLAG_VALUE', 'dotenv', file, why);
  });
  return require('dotenv').parse(text);
}

// The script options of a command's values; a script flag without --script is refused.
// -> { environment, overrides, config, payload, variables, env, scenarioName } (null: not given)
function scriptOptionsOf(values, given = new Set(Object.keys(values))) {
  const names = Object.keys(SCRIPT_FLAGS).filter((f) => given.has(f));
  if (!values.script && names.length)
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      given.as?.(names[0]) ?? names[0],
      'script',
      'it is for a script (--script FILE)',
    );
  if (given.has('count'))
    throw labError(
      'LAB_ERR_UNSUPPORTED',
      "--count: Artillery's workers sharing the load on this machine, or copies of it in a cloud; here --load-nodes N spreads the load over N load nodes (the lab's own engines use every core of one already)",
    );
  return {
    environment: values.environment ?? null,
    overrides: values.overrides ?? null,
    config: values.config ?? null,
    payload: values.payload ?? null,
    variables: values.variables !== undefined ? jsonMapping('variables', values.variables) : null,
    env: values.dotenv !== undefined ? readDotenv(values.dotenv) : null,
    dotenv: values.dotenv ?? null,
    scenarioName: values['scenario-name'] ?? null,
  };
}

// The script options of a command that passes them on (capacity, choose, a study): as
// scriptOptionsOf, and -k refused without a script too (the lab's own --tls entry is trusted
// through its CA: -k would change nothing there).
function runScriptOptionsOf(values, given = new Set(Object.keys(values))) {
  const options = scriptOptionsOf(values, given);
  if (values.insecure && !values.script)
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      given.as?.('insecure') ?? 'insecure',
      'script',
      "it is for a script's https:// requests (--script FILE)",
    );
  return options;
}

// The script flags given, as a command line shows them: what a plan says and what makes two
// searches or two studies the same. (A child run is never given them as text: it gets the
// values, lab/run/job.js passOn.) Paths were made absolute when parsed; --payload stays as
// typed, as Artillery reads it from the working folder.
function scriptArgs(values, given = new Set(Object.keys(values))) {
  const out = [];
  for (const name of SCRIPT_FLAG_NAMES) {
    if (!given.has(name) || values[name] === undefined || values[name] === false) continue;
    out.push(`--${name}`);
    if (values[name] !== true) out.push(String(values[name]));
  }
  return out;
}

// In words for a --plan: "-e staging --dotenv /x/.env", or null when none were given.
const scriptArgsText = (args) => (args.length ? args.map((a) => (/[\s'"{}]/.test(a) ? `'${a}'` : a)).join(' ') : null);

module.exports = {
  SCRIPT_FLAGS,
  SCRIPT_HELP,
  SCRIPT_RUN_FLAGS,
  SCRIPT_RUN_HELP,
  SCRIPT_FLAG_NAMES,
  INSECURE_FLAG,
  scriptOptionsOf,
  runScriptOptionsOf,
  scriptArgs,
  scriptArgsText,
  jsonMapping,
};
