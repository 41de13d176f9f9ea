'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PassThrough } = require('node:stream');
const { STUDIES } = require('../../../lab/studies');
const { stepJob, groupUpJob, groupDownJob } = require('../../../lab/studies/step-job');
const { readJob, readStdinJob } = require('../../../lab/run/job');
const { COMMAND: SCENARIO } = require('../../../lab/run/scenario-flags');
const { COMMAND: CAPACITY } = require('../../../lab/capacity/plan');
const { COMMAND: SIGNAL } = require('../../../lab/capacity/signal-flags');
const { COMMAND: CHARACTERIZE } = require('../../../lab/run/characterize-flags');
const { DEPLOY, DOWN } = require('../../../lab/run/deploy-flags');

// Every run of every study, and every group's deployment, given its options as a job its own
// command reads (issue 85): the study's words parsed once by that command's table in the
// parent, never a command line in the child. (The signaling study's `capacity --memory` runs
// are the command signal's: given to the HTTP search's table, each was refused.)
const TABLES = { scenario: SCENARIO, capacity: CAPACITY, signal: SIGNAL, characterize: CHARACTERIZE };
const SHOP = path.join(__dirname, '..', '..', 'fixtures', 'apps', 'shop');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-step-job-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const ctx = { stateDir: path.join(dir, 'state'), portBase: 21400, host: '127.0.0.1' };
const URL = 'http://127.0.0.1:21401';

const stdinOf = (text) => {
  const s = new PassThrough();
  s.end(text);
  return s;
};

test.each(Object.values(STUDIES).map((s) => [s.name, s]))(
  '%s: every run a job its command reads, with its folder, context and --out set; every group up and down as jobs',
  async (name, study) => {
    const commands = new Set();
    for (const scale of [1, 0.1]) {
      for (const step of study.plan({ scale, rateScale: 1, app: SHOP })) {
        const runDir = path.join(dir, name, String(scale), step.id);
        const args = step.args.map((a) => (a === '{target}' ? URL : a));
        const argv = stepJob(args, { out: ['json=/tmp/o.jsonl'], 'out-interval': undefined }, runDir, ctx, step.values);
        expect(argv).toEqual(['--job', path.join(runDir, '.lab-job.json')]);
        const { command, ...job } = readJob(argv[1]);
        commands.add(command);
        // (capacity's signaling form is signal's; any other command is its own words' first.)
        expect(command).toBe(args[0] === 'capacity' && args.includes('--memory') ? 'signal' : args[0]);
        const read = TABLES[command].read(job);
        expect(read.values).toMatchObject({
          'run-dir': runDir,
          json: true,
          'state-dir': ctx.stateDir,
          'port-base': 21400,
        });
        // (--out to the runs that measure HTTP only.)
        if (command === 'scenario' || command === 'capacity') expect(read.values.out).toEqual(['json=/tmp/o.jsonl']);
        else expect(job.values.out).toBeUndefined();
        // What the study typed for it is there as the command's own table parses it.
        const typed = TABLES[command].parsePart(args.slice(1));
        expect(read.positionals).toEqual(typed.positionals);
        for (const f of typed.given) expect({ f, v: read.values[f] }).toEqual({ f, v: typed.values[f] });
        // What the user typed for the study, passed on as the values it parsed (your service,
        // its scales: lab/studies/passed.js), read as they were set.
        for (const [f, v] of Object.entries(step.values ?? {})) expect({ f, v: read.values[f] }).toEqual({ f, v });
        if (step.group) {
          const up = groupUpJob(step.group.deploy, ctx);
          expect(up.args).toEqual(['--job', '-']);
          const { command: upCommand, ...upJob } = await readStdinJob(stdinOf(up.input));
          expect(upCommand).toBe('deploy');
          const deployed = DEPLOY.read(upJob);
          expect(deployed.positionals).toEqual(DEPLOY.parsePart(step.group.deploy.slice(1)).positionals);
          expect(deployed.values).toMatchObject({ json: true, 'state-dir': ctx.stateDir, 'port-base': 21400 });
        }
      }
    }
    expect(commands.size).toBeGreaterThan(0);
    if (name === 'signaling') expect([...commands].sort()).toEqual(['scenario', 'signal']);
  },
);

test('a group is taken down by a job of down on its state folder', async () => {
  const { args, input } = groupDownJob(ctx);
  expect(args).toEqual(['--job', '-']);
  const { command, ...job } = await readStdinJob(stdinOf(input));
  expect(command).toBe('down');
  expect(DOWN.read(job).values['state-dir']).toBe(ctx.stateDir);
});

test("a step of a command no study runs is the lab's mistake, said, not a command line", () => {
  expect(() => stepJob(['rollout', 'x'], {}, path.join(dir, 'x'), ctx)).toThrow(/no flag table/);
});
