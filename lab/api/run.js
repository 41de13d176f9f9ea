'use strict';

// One library call: the command run as the lab's own command line would run it, in a child
// process of its own (the lab traps signals, owns every process it starts and exits when done:
// none of that may happen inside the caller's process, a Jest worker), given the options the
// caller's side already parsed and checked (./options.js) as its job on its standard input
// (`node-deploy-lab COMMAND --job -`: lab/run/job.js), never as a command line to parse again.
// What it gives back:
//   a promise of what `--json` prints (a run that failed, exit 1, still resolves with it:
//   its fields say why; `run.exitCode` is 1), rejected with the lab's own error (its code, as
//   the command line's) when the command refused or ended with no answer;
//   events on it: 'log' (each line the command says, as the terminal shows it), 'progress'
//   (the live line's figures, a second apart, while load runs), 'exit' ({ code, signal });
//   cancellation by the AbortSignal given as `signal`: the child gets what Ctrl-C sends, stops
//   everything it started and keeps what it measured; the promise rejects with
//   LAB_ERR_INTERRUPTED once all of it has stopped.

const path = require('node:path');
const { EventEmitter } = require('node:events');
const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');
const { jobOfOptions } = require('./options');
const { jobText } = require('../run/job');

const BIN = path.join(__dirname, '..', 'cli', 'bin.js');
// Bounded: what is kept of a child's stdout (its JSON) and of its last words.
const MAX_STDOUT = 64 * 1024 * 1024;
const TAIL_LINES = 20;

function run(command, options = {}) {
  const events = new EventEmitter();
  const isObject = options !== null && typeof options === 'object' && !Array.isArray(options);
  const { signal, env, ...rest } = isObject ? options : {};
  const state = { exitCode: null };
  const promise = new Promise((resolve, reject) => {
    const childEnv = { ...process.env, LAB_PROGRESS: 'json', ...(env || {}) };
    let input;
    let named;
    try {
      const j = jobOfOptions(command, isObject ? rest : options, childEnv);
      named = j.command;
      input = jobText(named, j.job);
    } catch (err) {
      return reject(err);
    }
    if (signal?.aborted) return reject(labError('LAB_ERR_INTERRUPTED', 'its AbortSignal, before it started'));
    const child = spawn(process.execPath, [BIN, named, '--job', '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: childEnv,
    });
    // (A child that ends before reading it all: its exit says why.)
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    let stdout = '';
    let cut = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      if (stdout.length + d.length > MAX_STDOUT) cut = true;
      else stdout += d;
    });
    const tail = [];
    let partial = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const l of lines) heard(l);
    });
    const heard = (line) => {
      if (line.startsWith('lab-progress ')) {
        try {
          events.emit('progress', JSON.parse(line.slice('lab-progress '.length)));
        } catch {
          // (A line cut by the child's end: no figures to give.)
        }
        return;
      }
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      events.emit('log', line.replace(/^lab: /, ''));
    };
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      child.kill('SIGINT');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // (The caller's process ending first: the child is told as Ctrl-C would tell it.)
    const onExit = () => child.kill('SIGINT');
    process.once('exit', onExit);
    child.on('error', (err) => {
      process.removeListener('exit', onExit);
      reject(labError('LAB_ERR_NO_ANSWER', command, err.code, `its Node (${process.execPath}) could not start`));
    });
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort);
      process.removeListener('exit', onExit);
      if (partial) heard(partial);
      state.exitCode = code;
      events.emit('exit', { code, signal: sig });
      const answer = cut ? null : parsed(stdout);
      if (aborted || code === 130) {
        const err = labError('LAB_ERR_INTERRUPTED', aborted ? 'its AbortSignal' : 'a signal');
        err.result = answer;
        err.stderr = tail.join('\n');
        return reject(err);
      }
      if (answer !== null && (code === 0 || code === 1)) return resolve(answer);
      reject(errorOf(command, code ?? sig, tail));
    });
  });
  Object.assign(promise, {
    on: (...a) => (events.on(...a), promise),
    once: (...a) => (events.once(...a), promise),
    off: (...a) => (events.off(...a), promise),
  });
  // (A getter: Object.assign would copy its value, null, once.)
  return Object.defineProperty(promise, 'exitCode', { get: () => state.exitCode, enumerable: true });
}

function parsed(text) {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// The lab's own error line ("lab: ... [LAB_ERR_X]"), with its code and exit, as the command
// line would have ended; else LAB_ERR_NO_ANSWER with the last words.
function errorOf(command, code, tail) {
  const line = [...tail].reverse().find((l) => /\[LAB_ERR_[A-Z0-9_]+\]$/.test(l));
  if (line) {
    const m = /^(?:lab: )?(.*) \[(LAB_ERR_[A-Z0-9_]+)\]$/.exec(line);
    const err = new Error(m[1]);
    err.name = 'LabError';
    err.code = m[2];
    err.exitCode = typeof code === 'number' ? code : 1;
    err.stderr = tail.join('\n');
    return err;
  }
  const err = labError('LAB_ERR_NO_ANSWER', command, code, tail.slice(-3).join(' / '));
  err.stderr = tail.join('\n');
  return err;
}

module.exports = { run, errorOf };
