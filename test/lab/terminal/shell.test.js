'use strict';

const { spawnSync } = require('node:child_process');
const { shellLine } = require('../../../lab/terminal/shell');

// A plan's command pasted into a shell gives back the same words (issue 83: `--slo p99<200`
// was a redirection, `--body {"a":1}` and `--app-setup npm run migrate` not one word each).
test('every word comes back from sh as it went in', () => {
  const words = [
    'npm',
    'run',
    'capacity',
    '--',
    '/price?rounds=600000',
    '--slo',
    'p99<200',
    '--app-setup',
    'npm run migrate',
    '--body',
    '{"a":1}',
    '--header',
    "x-who: it's me",
    '--cap',
    'replica=25%',
    '$HOME',
    '',
  ];
  const line = shellLine(words);
  const back = spawnSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
  expect(back.stdout.split('\n').slice(0, -1)).toEqual(words);
  expect(line).toMatch(/--slo 'p99<200'/);
  expect(line).toMatch(/--cap replica=25%/);
});
