'use strict';

// What --help and --plan say (each command's usage): read as a user reads them. (The help of
// --ensure said "exit 1" where it is 99; a flag's name ran into its text: "--generator-workers
// Nthe engine threads"; a sweep of 2 replica counts did not say it gives no fit.)
const COMMANDS = ['scenario', 'deploy', 'capacity', 'study', 'down', 'compare', 'characterize', 'report', 'choose'];
const help = async (command) =>
  (await require(`../../../lab/commands/${command}`)(['--help'], { log: () => {} })).stdout;

test.each(COMMANDS)(
  '%s --help: every flag is followed by a space or its own line, never glued to its text',
  async (c) => {
    const text = await help(c);
    // A value's placeholder (N, FILE) glued to the text after it: "--generator-workers Nthe".
    expect(text.split('\n').filter((l) => /--[a-z][a-z0-9-]* [A-Z]+[a-z]/.test(l))).toEqual([]);
  },
);

test('scenario --help says the exit codes as they are: 99 for a crossed threshold', async () => {
  const text = await help('scenario');
  expect(text).toMatch(/--ensure EXPR {4}fail the run \(exit 99\) unless EXPR holds/);
  expect(text).not.toMatch(/exit 1\) unless/);
  expect(text).toMatch(/Exit codes: 0 all held, 99 a threshold was crossed, 1 the run failed, 2 usage\./);
});

test('capacity --replicas with fewer than 4 counts: the plan says there will be no fit', async () => {
  const path = require('node:path');
  const capacity = require('../../../lab/commands/capacity');
  const shop = path.join(__dirname, '..', '..', 'fixtures', 'apps', 'shop');
  const few = (await capacity(['/x', '--app', shop, '--replicas', '1,2', '--plan'], { log: () => {} })).stdout;
  expect(few).toMatch(/note: 2 replica count\(s\) give no fit of the scaling law \(it needs 4 at least\)/);
  const enough = (await capacity(['/x', '--app', shop, '--replicas', '1,2,3,4', '--plan'], { log: () => {} })).stdout;
  expect(enough).not.toMatch(/no fit/);
});

test('down --help names --delete-data, and what down keeps', async () => {
  expect(await help('down')).toMatch(/--delete-data {2}delete the kept data too/);
});
