'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { claimDir, JOB } = require('../ownership/dirs');

// A child run's options as a job (issue 85): the parent parsed and checked them once (its
// own command line, or what it measures next: a level's rate, the caps of a sweep), and the
// child reads them back as data, checked against the same flag table (lab/terminal/flags.js
// fromJob), never as a command line rebuilt from them and parsed again.
//   { lab: 'job', version, command, positionals, values, given }
// `node lab/cli --job FILE` runs it (lab/cli/index.js): the file is the child's record of what
// it was asked, kept beside its run. A child with no folder of its own (a study's group, a
// library call) reads its job on its standard input: `node lab/cli COMMAND --job -`.
const VERSION = 1;
// (Bounded like every input: a job is a few kilobytes; a script's content is never in it.)
const MAX_BYTES = 1024 * 1024;

// Whether a value is plain data, the same once through JSON: null, true/false, a text, a finite
// number, a list of those, an object of those (a key whose value is undefined is no key, for
// JSON and for the child's reading alike). A Date, a Set, a function, NaN would not come back.
// (By kind, not by prototype: under Jest the parsed values and JSON's come from two realms.)
function isPlain(v) {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isPlain);
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== null && proto.constructor?.name !== 'Object') return false;
  return Object.values(v).every((x) => x === undefined || isPlain(x));
}
// job: a command's parsed form (COMMAND.jobOf(parsed)); its values must be plain data: a value
// that would not come back the same from JSON is the lab's mistake, said now, not in the child.
// -> the job's text.
function jobText(command, job) {
  for (const [name, v] of Object.entries(job.values))
    if (!isPlain(v)) throw labError('LAB_ERR_JOB', `--${name} of ${command} would not come back the same from JSON`);
  const text = JSON.stringify({ lab: 'job', version: VERSION, command, ...job }, null, 2);
  if (Buffer.byteLength(text) > MAX_BYTES)
    throw labError('LAB_ERR_JOB', `the job for ${command} is larger than ${MAX_BYTES} bytes`);
  return `${text}\n`;
}
function writeJob(file, command, job) {
  fs.writeFileSync(file, jobText(command, job));
  return file;
}

// -> { command, positionals, values, given }: the job's own shape checked; its values are
// checked by the command's flag table when it reads them.
function readJob(file) {
  const bad = (why) => labError('LAB_ERR_JOB', `${file}: ${why}`);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw bad(`it cannot be read (${err.code})`);
  }
  if (!stat.isFile() || stat.size > MAX_BYTES) throw bad(`not a file of at most ${MAX_BYTES} bytes`);
  return jobOfText(fs.readFileSync(file, 'utf8'), file);
}

// A job given on the standard input (`node lab/cli --job -`: a parent with no folder of the
// child's to keep it in, a group's deploy, a library call), bounded in size and time.
// -> a promise of what readJob gives.
const STDIN_WAIT_MS = 30000;
function readStdinJob(stdin = process.stdin, waitMs = STDIN_WAIT_MS) {
  const where = 'the job on the standard input';
  if (stdin.isTTY) return Promise.reject(labError('LAB_ERR_JOB', `${where}: it is a terminal (a job is a lab run's)`));
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const fail = (why) => {
      cleanup();
      stdin.destroy();
      reject(labError('LAB_ERR_JOB', `${where}: ${why}`));
    };
    const timer = setTimeout(() => fail(`nothing whole came within ${waitMs / 1000} s`), waitMs);
    const onData = (d) => {
      size += d.length;
      if (size > MAX_BYTES) return fail(`larger than ${MAX_BYTES} bytes`);
      chunks.push(d);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(jobOfText(Buffer.concat(chunks).toString('utf8'), where));
      } catch (err) {
        reject(err);
      }
    };
    const onError = (err) => fail(`it cannot be read (${err.code ?? err.message})`);
    const cleanup = () => {
      clearTimeout(timer);
      stdin.off('data', onData).off('end', onEnd).off('error', onError);
    };
    stdin.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function jobOfText(text, where) {
  const bad = (why) => labError('LAB_ERR_JOB', `${where}: ${why}`);
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw bad(`not JSON (${err.message})`);
  }
  if (data?.lab !== 'job' || data.version !== VERSION)
    throw bad(`not a job of this lab (version ${VERSION}), but ${JSON.stringify(data?.version ?? data?.lab ?? null)}`);
  if (typeof data.command !== 'string') throw bad('it names no command');
  if (!Array.isArray(data.given)) throw bad('its given flags are not a list');
  return { command: data.command, positionals: data.positionals, values: data.values, given: data.given };
}

// A parent's part of a child's options (`parsed`: what the user typed for it, parsed once by
// `schema`, the child command's flag table) with `values` set on it as data (a level's rate, a
// sweep's caps), each set one counted as given; checked as the child will check it. -> the
// parsed form the child reads.
function withValues(schema, parsed, values = {}) {
  const set = Object.keys(values).filter((k) => {
    const v = values[k];
    return v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);
  });
  return schema.fromJob({
    positionals: parsed.positionals,
    values: { ...schema.jobOf(parsed).values, ...values },
    given: [...new Set([...parsed.given, ...set])],
  });
}

// A child run's job into its own folder `dir` (claimed for it; the job kept there as what the
// run was asked): withValues(schema, parsed, values). -> the child's argv, ['--job', FILE].
function jobInto(dir, command, schema, parsed, values = {}) {
  const job = withValues(schema, parsed, values);
  claimDir(dir, `the ${command} run's folder`);
  return ['--job', writeJob(path.join(dir, JOB), command, schema.jobOf(job))];
}

// A child run's job on its standard input, for a child with no folder of its own (a study's
// group deployed and taken down): -> { args: ['--job', '-'], input } (./child.js labChild).
function jobInput(command, schema, parsed, values = {}) {
  const job = withValues(schema, parsed, values);
  return { args: ['--job', '-'], input: jobText(command, schema.jobOf(job)) };
}

// What a parent passes on to its child of what the user typed for the parent: each flag of
// `names` ({ parent's name: the child's }) the user gave, from `parsed` (the parent's parse).
// Where both tables hold the same flag (the same spec object: the same parse), as the value
// already parsed; a switch, as true; else as the text the user typed (the parent's parse of such
// a flag keeps it: capacity's --method is checked but kept as typed, scenario's is parsed into
// the request's or the balancer's), parsed once, by the child's table. Never a parsed value
// written back as text. -> { values, tokens } (for withValues and the child's parsePart).
function passOn(from, to, parsed, names) {
  const values = {};
  const tokens = [];
  for (const [name, target] of Object.entries(names)) {
    const a = from.specs[name];
    const b = to.specs[target];
    // (Checked given or not: a table naming a flag one side lacks is the lab's mistake.)
    if (!a || !b) throw new Error(`--${name} cannot be passed on as --${target}: not a flag of both`);
    if (!parsed.given.has(name)) continue;
    const v = parsed.values[name];
    if (a === b || (a.boolean && b.boolean)) {
      values[target] = v;
      continue;
    }
    const texts = a.multiple ? v : [v];
    if (a.boolean || b.boolean || !texts.every((x) => typeof x === 'string'))
      throw new Error(`--${name} is no text as typed, to be passed on as --${target}`);
    for (const x of texts) tokens.push(`--${target}`, x);
  }
  return { values, tokens };
}

module.exports = { passOn, jobText, writeJob, readJob, readStdinJob, withValues, jobInto, jobInput, MAX_BYTES };
