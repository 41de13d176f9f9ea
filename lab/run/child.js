'use strict';

const { spawn } = require('node:child_process');
const { CLI } = require('../paths');

// A lab command as a child process, for the commands made of other runs: a study's runs
// (lab/commands/study/) and a capacity search's levels (lab/capacity/level.js). Its stderr's
// tail is kept for a reason to give when it fails (and passed through when asked), its stdout
// kept when asked. (The child's own step summary would be one of dozens: the parent writes
// its own, so the child gets none.)
const TAIL = 4000;
// onLine(line): each whole line of its stderr, as it comes (a parent's progress from a child's).
// input: what its standard input reads, then its end (a job: ./job.js jobInput).
function labChild(args, { keepStdout = false, passStderr = false, onLine = null, input = null } = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: [input === null ? 'ignore' : 'pipe', keepStdout ? 'pipe' : 'ignore', 'pipe'],
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
  });
  // (A child that ends before reading it all: the pipe's error is its own exit's to say.)
  if (input !== null) child.stdin.on('error', () => {}).end(input);
  let stdout = '';
  let tail = '';
  if (keepStdout) child.stdout.on('data', (d) => (stdout += d));
  let partial = '';
  child.stderr.on('data', (d) => {
    if (passStderr) process.stderr.write(d);
    tail = (tail + d).slice(-TAIL);
    if (!onLine) return;
    const lines = (partial + d).split('\n');
    partial = lines.pop().slice(-TAIL);
    for (const l of lines) onLine(l);
  });
  // Done once its output is all read ('close'): 'exit' can come before the last of a large
  // stdout (a level's summary as JSON). At most 5 s after its exit, should a process it left
  // hold the pipe.
  const done = new Promise((resolve) => {
    let wait = null;
    const end = (code) => {
      clearTimeout(wait);
      resolve({ code, stdout, tail });
    };
    child.once('exit', (code, sig) => {
      wait = setTimeout(() => end(code ?? sig), 5000);
      child.once('close', () => end(code ?? sig));
    });
  });
  return { child, done };
}

// Why a child failed: the lab's own error line ("lab: ... [LAB_ERR_X]") from its stderr's
// tail, else its last line, else how it exited.
function reasonOf(tail, code) {
  const lines = tail
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const err = [...lines].reverse().find((l) => /LAB_ERR_|error/i.test(l));
  return (err || lines[lines.length - 1] || `exited ${code}`).replace(/^lab:\s*/, '');
}

// On an interrupt, a child still running is sent SIGINT (its own cleanup runs: it stops what
// it started) and waited for; null when it has already exited. (Not lab/ownership/procs.js
// stopChild, whose SIGKILL after a grace would cut a child's own `down` short.)
function interruptChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return null;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  return gone;
}

module.exports = { labChild, reasonOf, interruptChild };
