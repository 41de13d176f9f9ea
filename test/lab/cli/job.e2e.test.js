'use strict';

const { runProgram, tmpStateDir } = require('../../helper');
const { jobInput, jobText } = require('../../../lab/run/job');
const { DOWN } = require('../../../lab/run/deploy-flags');

// `node lab/cli COMMAND --job -` (issue 85): the library's and a study's group's way to give a
// child its parsed options, on its standard input. The job runs when it is that command's; a
// job for another command, a command that takes none, and a text that is no job are each
// refused by name (LAB_ERR_JOB, exit 1), and nothing runs.
const downJob = (stateDir) => jobInput('down', DOWN, DOWN.parsePart([]), { 'state-dir': stateDir });

test('down given its job on stdin runs it: the state folder it names, nothing up there', async () => {
  const stateDir = tmpStateDir();
  const { input } = downJob(stateDir);
  const r = await runProgram('lab/cli', ['down', '--job', '-'], { input });
  expect({ code: r.code, err: r.stderr.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
  expect(`${r.stdout}${r.stderr}`).toMatch(/nothing (was )?up|nothing to stop/i);
  // (The same without the command's name: the job says it.)
  const bare = await runProgram('lab/cli', ['--job', '-'], { input });
  expect(bare.code).toBe(0);
}, 60000);

test("a job is refused by name when it is another command's, the command takes none, or it is no job", async () => {
  const { input } = downJob(tmpStateDir());
  const cases = [
    [['capacity', '--job', '-'], input, /-: a job for down, given to capacity \[LAB_ERR_JOB\]/],
    [['status', '--job', '-'], input, /status takes no job \[LAB_ERR_JOB\]/],
    [['--job', '-'], '{"lab": "job"', /the job on the standard input: not JSON .* \[LAB_ERR_JOB\]/],
    [['--job', '-'], jobText('rollout', { positionals: [], values: {}, given: [] }), /-: rollout takes no job/],
  ];
  for (const [args, text, said] of cases) {
    const r = await runProgram('lab/cli', args, { input: text });
    expect({ args, code: r.code, said: r.stderr }).toEqual({ args, code: 1, said: expect.stringMatching(said) });
  }
  // (A misspelled command is refused as on a command line, with its nearest.)
  const typo = await runProgram('lab/cli', ['capacty', '--job', '-'], { input });
  expect(typo.code).toBe(2);
  expect(typo.stderr).toMatch(/capacty.*capacity/);
}, 60000);
