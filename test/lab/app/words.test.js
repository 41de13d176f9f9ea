'use strict';

const { splitWords, nodeCommand } = require('../../../lab/app/words');

test('a start line splits as a shell would split it, quotes and escapes included', () => {
  expect(splitWords(`node "my server.js" --name 'a b' x\\ y`)).toEqual([
    'node',
    'my server.js',
    '--name',
    'a b',
    'x y',
  ]);
  expect(splitWords('node a.js "unclosed')).toBeNull();
  // What only a shell can do makes it a shell line.
  for (const line of ['npm run build && node x.js', 'node x.js > out.log', 'node $ENTRY', 'node x.js | tee']) {
    expect(splitWords(line)).toBeNull();
  }
});

test('a plain Node command: its entry, Node options, arguments and leading variables', () => {
  expect(nodeCommand('node server.js')).toEqual({ entry: 'server.js', execArgv: [], args: [], env: {} });
  expect(nodeCommand('NODE_ENV=production node --max-old-space-size=256 -r ./trace.js dist/main.js --port 1')).toEqual({
    entry: 'dist/main.js',
    execArgv: ['--max-old-space-size=256', '-r', './trace.js'],
    args: ['--port', '1'],
    env: { NODE_ENV: 'production' },
  });
  for (const line of ['ts-node src/x.ts', 'node -e "1"', 'node', 'npm start', 'node --inspect']) {
    expect(nodeCommand(line)).toBeNull();
  }
});
