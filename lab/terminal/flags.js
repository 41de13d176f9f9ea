'use strict';

// The lab's terminal kit, at the bottom of lab/ (it imports only names.js, paths.js and
// common/): a command's declaration and its flags' kinds, parsed and checked once.

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { parseArgs } = require('node:util');
const parseSettings = require('../../common/settings');
const { labError } = require('../../common/errors');
const parseDuration = require('./duration');
const { pick, suggest } = require('../names');

const { ROOT } = require('../paths');

// A host name as DNS allows it (labels of letters, digits and inner hyphens), or an IP.
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
function parseHost(raw) {
  if (net.isIP(raw) || HOSTNAME.test(raw)) return raw;
  throw new Error('not a host');
}

// A percentage with its % (or, where the flag takes one, a fraction) -> a fraction.
function parsePercent(raw, maxPct, { fraction, zero }) {
  const m = /^(\d+(?:\.\d+)?)(%)?$/.exec(String(raw).trim());
  if (!m) throw new Error('not a percentage');
  if (!m[2] && !fraction)
    throw Object.assign(new Error('no %'), {
      reason: `"${raw}" has no %: give ${m[1]}% or ${Math.round(Number(m[1]) * 1000) / 10}%, as you mean it`,
    });
  const share = m[2] ? Number(m[1]) / 100 : Number(m[1]);
  if (!((zero ? share >= 0 : share > 0) && share <= maxPct / 100))
    throw Object.assign(new Error('out of range'), {
      reason: `${m[2] ? raw : `${share * 100}%`} is out of that range`,
    });
  return share;
}

function parsePath(raw) {
  if (raw.trim() === '' || raw.includes('\0')) throw new Error('empty');
  return path.resolve(raw);
}

// A file the lab will write at the end of a run (--junit FILE): checked now, before anything
// runs, so that a folder or an unwritable place is one usage line, not a failure found after
// the whole run (EISDIR once came after a run whose thresholds held). A missing file is
// tried by making (then removing) a file of the lab's where it would be made.
function parseOutputFile(raw) {
  const refuse = (reason) => {
    throw Object.assign(new Error(reason), { reason });
  };
  const file = parsePath(raw);
  let stat = null;
  try {
    stat = fs.statSync(file);
  } catch {
    // not there yet
  }
  if (stat) {
    if (!stat.isFile()) refuse(stat.isDirectory() ? 'it is a folder' : 'it is not a regular file');
    try {
      fs.closeSync(fs.openSync(file, 'r+'));
    } catch (err) {
      refuse(`it cannot be written (${err.code})`);
    }
    return file;
  }
  let dir = path.dirname(file);
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  if (!fs.statSync(dir).isDirectory()) refuse(`${dir} is not a folder`);
  const probe = path.join(dir, `.lab-write-check-${process.pid}`);
  try {
    fs.closeSync(fs.openSync(probe, 'wx'));
    fs.unlinkSync(probe);
  } catch (err) {
    refuse(`nothing can be written in ${dir} (${err.code})`);
  }
  return file;
}

// The kinds of value a flag takes, as common/settings.js specs: the same parser the
// service and the black boxes validate their configuration with.
const flag = {
  bool: () => ({ boolean: true }),
  string: () => ({ type: 'string' }),
  int: (min, max) => ({ type: 'int', min, max }),
  // A multiplier: above 0, at most `max`.
  factor: (max = 100) => ({ type: 'number', above: 0, max }),
  // Names from a table: an unknown one is LAB_ERR_UNKNOWN_NAME with a "did you mean".
  enum: (values, kind) => ({ type: 'enum', values, kind }),
  url: () => ({ type: 'url' }),
  duration: () => ({
    type: 'custom',
    parse: (raw) => parseDuration(raw),
    expected: 'a duration above 0 and at most 24h (seconds, or like 90s, 10m, 1h30m)',
    // (A value as a command line shows it: lab/choose/dimensions.js.)
    show: parseDuration.text,
  }),
  host: () => ({ type: 'custom', parse: parseHost, expected: 'an IP address or a host name' }),
  // A share, with its %: 30% -> 0.3, above 0 (or from 0, `zero`) and at most `maxPct`. A bare
  // number is refused (0.3 reads as 0.3% to some and as 30% to others), unless `fraction` says
  // the flag also takes one (at most maxPct / 100: --precision 0.05 as documented).
  percent: (maxPct, { fraction = false, zero = false } = {}) => ({
    type: 'custom',
    parse: (raw) => parsePercent(raw, maxPct, { fraction, zero }),
    show: (share) => `${Math.round(share * 1e6) / 1e4}%`,
    expected: `a percentage ${zero ? 'from 0%' : 'above 0%'} and at most ${maxPct}%, like ${Math.min(30, maxPct)}%${fraction ? ` (or a fraction, like ${Math.min(30, maxPct) / 100})` : ''}`,
  }),
  // A flag given any number of times; each value through `parse` (which throws a LabError).
  list: (parse) => ({ multiple: true, parse }),
  path: () => ({ type: 'custom', parse: parsePath, expected: 'a path' }),
  outputFile: () => ({ type: 'custom', parse: parseOutputFile, expected: 'a file the lab can write' }),
  // A flag that may be given alone: `whenAlone` is its value then; `looksLike` tells its
  // value from the next word.
  optional: (parse, { whenAlone, looksLike, expected, env }) => ({
    type: 'custom',
    parse,
    expected,
    optionalValue: looksLike,
    whenAlone,
    ...(env ? { env } : {}),
  }),
  pattern: (re, expected) => ({
    type: 'custom',
    parse: (raw) => {
      if (!re.test(raw)) throw new Error('no match');
      return raw;
    },
    expected,
  }),
};

// Every command has these.
const COMMON = { json: flag.bool(), help: { ...flag.bool(), short: 'h' } };

// A command's declaration: { usage, positionals: { names: [...] } or { min, max, name },
// flags: { name: spec } }. `parse(argv, env)` checks the whole command line before the
// command does anything and returns { values (frozen, by flag name), positionals, help }.
function defineCommand({ usage, positionals = { names: [] }, flags = {} }) {
  const all = { ...COMMON, ...flags };
  // (A flag that needs one the command does not take could never be given: a mistake here.)
  for (const [name, spec] of Object.entries(all)) {
    const missing = spec.needs ? needsOf(spec.needs).flags.filter((f) => !all[f]) : [];
    if (missing.length === needsOf(spec.needs ?? []).flags.length && missing.length)
      throw new Error(`--${name} needs --${missing.join(' or --')}, which this command does not take`);
  }
  const parseOptions = {};
  for (const [name, spec] of Object.entries(all)) {
    parseOptions[name] = {
      type: spec.boolean ? 'boolean' : 'string',
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  const min = positionals.names ? positionals.names.length : positionals.min;
  const max = positionals.names ? positionals.names.length : (positionals.max ?? Infinity);
  const wanted = positionals.names ? positionals.names.map((n) => `<${n}>`).join(' ') : `<${positionals.name}>...`;

  // One line for a flag the command does not take, or one given wrong: Node's own words
  // advise `--` with an unbalanced quote (wrong under npm run) and the usage followed them.
  const help = `(${commandOf(usage)} --help)`;
  function flagError(err) {
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(err.message);
    if (unknown) {
      const given = unknown[1].replace(/^-+/, '');
      const near = suggest(given, Object.keys(all));
      return labError('LAB_ERR_UNKNOWN_FLAG', unknown[1], near, help);
    }
    const missing = /^Option '(--[^ ']+)[^']*' argument missing/.exec(err.message);
    if (missing) return labError('LAB_ERR_FLAG_VALUE', missing[1].slice(2), null, `needs a value ${help}`);
    const noValue = /^Option '(--[^ ']+)' does not take an argument/.exec(err.message);
    if (noValue) return labError('LAB_ERR_FLAG_VALUE', noValue[1].slice(2), null, `takes no value ${help}`);
    return labError('LAB_ERR_INVALID_VALUE', `${err.message} ${help}`);
  }

  // (partial: the part of a child's options its parent parses before it sets the rest as
  // values, a level's --target among them: what a flag needs is checked on the whole, by
  // fromJob, not on that part alone.)
  function parse(argv, env = process.env, { partial = false } = {}) {
    // A flag whose value is optional (`--dashboard [PORT]`): given alone, or followed by a
    // word that is not its value, it takes its default.
    argv = argv.map((a, i) => {
      const spec = a.startsWith('--') && !a.includes('=') ? all[a.slice(2)] : null;
      if (!spec || !spec.optionalValue) return a;
      const next = argv[i + 1];
      return next !== undefined && spec.optionalValue.test(next) ? a : `${a}=${spec.whenAlone}`;
    });
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: parseOptions, allowPositionals: true, strict: true });
    } catch (err) {
      throw flagError(err);
    }
    const raw = parsed.values;
    if (raw.help) return { help: true, values: {}, positionals: [] };
    const words = parsed.positionals;
    if (words.length > max) throw labError('LAB_ERR_UNEXPECTED_ARG', words[max], usage);
    if (words.length < min) throw labError('LAB_ERR_MISSING_ARG', wanted, usage);

    for (const [name, spec] of Object.entries(all)) {
      if (spec.multiple || spec.boolean) continue;
      if (spec.type !== 'string' && raw[name] !== undefined && raw[name].trim() === '') {
        throw labError('LAB_ERR_FLAG_VALUE', name, null, 'needs a value (see --help)');
      }
    }
    for (const [name, spec] of Object.entries(all)) {
      if (spec.type === 'enum' && raw[name] !== undefined) pick(spec.kind ?? name, raw[name], spec.values);
    }
    // Each value flag through the settings parser, named as the user gave it (flag or env).
    const schema = {};
    const source = {};
    for (const [name, spec] of Object.entries(all)) {
      if (spec.boolean || spec.multiple) continue;
      const fromEnv = raw[name] === undefined && spec.env && env[spec.env] !== undefined;
      const shown = fromEnv ? spec.env : `--${name}`;
      schema[name] = { ...spec, name: shown };
      if (raw[name] !== undefined) source[shown] = raw[name];
      else if (fromEnv) source[shown] = env[spec.env];
    }
    let values;
    try {
      values = { ...parseSettings(schema, source) };
    } catch (err) {
      if (err.code !== 'LAB_ERR_CONFIG') throw err;
      throw labError('LAB_ERR_INVALID_VALUE', `${err.message} (see --help)`);
    }
    for (const [name, spec] of Object.entries(all)) {
      if (spec.boolean) values[name] = raw[name] === true;
      if (spec.multiple) values[name] = (raw[name] || []).map((v) => parseEach(name, spec, v));
    }
    // Which flags the user actually gave, for checks like "this flag needs that scenario";
    // `given.as(name)` is the flag as typed (-e for --environment), for the messages.
    const given = new Set(Object.keys(raw).filter((k) => raw[k] !== undefined));
    const shortOf = Object.fromEntries(
      Object.entries(all)
        .filter(([, spec]) => spec.short)
        .map(([name, spec]) => [`-${spec.short}`, name]),
    );
    const typed = {};
    for (const a of argv) if (shortOf[a.split('=')[0]]) typed[shortOf[a.split('=')[0]]] ??= a.split('=')[0];
    given.as = (name) => typed[name] ?? `--${name}`;
    if (!partial) checkNeeds(all, given);
    return { help: false, values: Object.freeze(values), given, positionals: words };
  }
  // A child run's options as its parent already parsed them (a job: lab/run/job.js), checked
  // against this same table and never parsed from text again: every flag one this command
  // takes, each value of its flag's kind and within its bounds (a custom kind's value, its
  // parser's output, is taken as it is), the words' count, and what a flag needs beside it.
  function fromJob({ positionals = [], values = {}, given = [] } = {}) {
    const bad = (why) => labError('LAB_ERR_JOB', why);
    if (!Array.isArray(positionals) || positionals.some((w) => typeof w !== 'string'))
      throw bad('its words are not a list of texts');
    if (positionals.length > max || positionals.length < min)
      throw bad(`it has ${positionals.length} word(s), and ${commandOf(usage)} takes ${wanted}`);
    if (values === null || typeof values !== 'object' || Array.isArray(values)) throw bad('its values are no object');
    for (const [name, v] of Object.entries(values)) {
      const spec = all[name];
      if (!spec) throw bad(`--${name} is no flag of ${commandOf(usage)}`);
      // (Not given: as on a command line. A parsed form read again has every flag's key.)
      if (v === undefined) continue;
      const why = kindProblem(spec, v);
      if (why) throw bad(`--${name} is ${JSON.stringify(v)}: ${why}`);
    }
    for (const name of given) if (!all[name]) throw bad(`--${name} (given) is no flag of ${commandOf(usage)}`);
    const set = new Set(given);
    set.as = (name) => `--${name}`;
    checkNeeds(all, set);
    const full = {};
    for (const [name, spec] of Object.entries(all)) {
      if (spec.boolean) full[name] = values[name] === true;
      else if (spec.multiple) full[name] = values[name] ?? [];
      else full[name] = values[name];
    }
    return { help: false, values: Object.freeze(full), given: set, positionals: [...positionals] };
  }
  // A parent's part of a child's options (above): parsed, what a flag needs left to fromJob.
  const parsePart = (argv) => parse(argv, process.env, { partial: true });
  // What a parent writes for its child: the parsed form as plain data (lab/run/job.js).
  const jobOf = ({ values, given, positionals }) => ({
    positionals: [...positionals],
    values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)),
    given: [...given],
  });
  // A command line (argv) or a job's parsed form: the command reads either the same way.
  const read = (input, env) => (Array.isArray(input) ? parse(input, env) : fromJob(input));
  // (Each flag's kind, for the library that writes its options as flags: lab/api/options.js.)
  const kinds = Object.fromEntries(
    Object.entries(all).map(([n, spec]) => [n, spec.boolean ? 'bool' : spec.multiple ? 'list' : 'value']),
  );
  return {
    parse,
    parsePart,
    fromJob,
    jobOf,
    read,
    usage,
    needsHelp: () => needsHelp(all),
    names: Object.keys(all),
    // (Each flag's spec, for a parent passing a flag on: the same spec in both tables, the
    // same parse, passes as a value: lab/run/job.js passOn.)
    specs: Object.freeze({ ...all }),
    kinds,
  };
}

// Why a value (a job's, already parsed) is not of its flag's kind: null when it is.
function kindProblem(spec, v) {
  if (spec.boolean) return typeof v === 'boolean' ? null : 'not true or false';
  if (spec.multiple) return Array.isArray(v) ? null : 'not a list';
  if (v === undefined || v === null) return 'no value';
  if (spec.type === 'int' || spec.type === 'number') {
    if (typeof v !== 'number' || !Number.isFinite(v)) return 'not a number';
    if (spec.type === 'int' && !Number.isInteger(v)) return 'not a whole number';
    if (spec.min !== undefined && v < spec.min) return `below ${spec.min}`;
    if (spec.above !== undefined && v <= spec.above) return `not above ${spec.above}`;
    if (spec.max !== undefined && v > spec.max) return `above ${spec.max}`;
    return null;
  }
  if (spec.type === 'enum') {
    const names = Array.isArray(spec.values) ? spec.values : Object.keys(spec.values);
    return names.includes(v) ? null : `not one of ${names.join(', ')}`;
  }
  if (spec.type === 'string' || spec.type === 'url') return typeof v === 'string' ? null : 'not a text';
  return null;
}

// A flag that means something only beside another declares it: `needs: { flags: [...], why }`
// (any one of them will do), or the one flag's name. Given without it, it is refused before
// anything runs (it was once taken and ignored: --pre-stop without a rollout, --streams
// without HTTP/2), naming both and the reason. One table, read by the parse and by --help.
const needsOf = (needs) =>
  typeof needs === 'string' ? { flags: [needs], why: null } : { flags: [].concat(needs.flags), why: needs.why ?? null };
function checkNeeds(all, given) {
  for (const [name, spec] of Object.entries(all)) {
    if (!spec.needs || !given.has(name)) continue;
    const { flags, why } = needsOf(spec.needs);
    if (!flags.some((f) => given.has(f))) throw labError('LAB_ERR_FLAG_NEEDS', given.as?.(name) ?? name, flags, why);
  }
}

// The help's lines for them: "  --pre-stop needs --rollout-at or --autoscale".
function needsHelp(all) {
  const lines = Object.entries(all)
    .filter(([, spec]) => spec.needs)
    .map(([name, spec]) => {
      const { flags } = needsOf(spec.needs);
      return `  --${name} needs ${flags.map((f) => `--${f}`).join(' or ')}`;
    });
  return lines.length ? `Flags that take effect only beside another (refused alone):\n${lines.join('\n')}` : '';
}

// One value of a repeatable flag: its parser's own LabError, or one usage line that says
// what was expected (a plain Error from a parser was once "unexpected failure", exit 1).
function parseEach(name, spec, value) {
  try {
    return spec.parse(value);
  } catch (err) {
    if (err.code && String(err.code).startsWith('LAB_ERR_')) throw err;
    const why = err.message ? ` (${err.message})` : '';
    throw labError(
      'LAB_ERR_INVALID_VALUE',
      `invalid --${name}=${JSON.stringify(value)}${why}: expected ${spec.expected ?? 'another value'} (see --help)`,
    );
  }
}

// How a user runs the command whose usage this is: `npm run scenario --` (the usage's own words).
function commandOf(usage) {
  const m = /npm run (\S+)/.exec(usage || '');
  if (m) return `npm run ${m[1]} --`;
  // A script of its own (a bench: bench/kit.js), as its usage names it.
  const script = /\bnode (\S+\.js)\b/.exec(usage || '');
  return script ? `node ${script[1]}` : 'node lab/cli <command>';
}

module.exports = { defineCommand, flag, ROOT, needsOf };
