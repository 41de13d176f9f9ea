'use strict';

const { refusalOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { scriptOptionsOf } = require('../../../lab/scenario/script-flags');

// Artillery's run flags as the lab reads them, once: what each becomes, what is refused and why.
const refusal = (values) => refusalOf(() => scriptOptionsOf(values));

test('each flag becomes its option; --variables parsed; --dotenv read with dotenv', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'script-flags-'));
  const env = path.join(dir, 'test.env');
  fs.writeFileSync(env, '# a comment\nTOKEN=abc\nQUOTED="two words"\n');
  expect(
    scriptOptionsOf({
      script: '/s.yml',
      environment: 'staging',
      config: '/c.yml',
      payload: 'rows.csv',
      variables: '{"who":"me","n":2}',
      dotenv: env,
      'scenario-name': 'buy',
    }),
  ).toEqual({
    environment: 'staging',
    overrides: null,
    config: '/c.yml',
    payload: 'rows.csv',
    variables: { who: 'me', n: 2 },
    env: { TOKEN: 'abc', QUOTED: 'two words' },
    dotenv: env,
    scenarioName: 'buy',
  });
});

test('refused with a usage error (exit 2): a script flag without a script, --count, bad JSON, an unreadable .env', () => {
  expect(refusal({ config: '/c.yml' })).toEqual({
    code: 'LAB_ERR_FLAG_NEEDS',
    exit: 2,
    message: expect.stringMatching(/--config needs --script: it is for a script \(--script FILE\)/),
  });
  expect(refusal({ script: '/s.yml', count: '4' }).message).toMatch(/--count: .*--load-nodes N/);
  expect(refusal({ script: '/s.yml', variables: '{nope' }).message).toMatch(/--variables '{nope': not JSON/);
  expect(refusal({ script: '/s.yml', variables: '[1]' }).message).toMatch(
    /--variables '\[1\]': expected a JSON object/,
  );
  expect(refusal({ script: '/s.yml', dotenv: '/nonexistent/x.env' }).message).toMatch(
    /--dotenv \/nonexistent\/x.env: cannot read it \(ENOENT\)/,
  );
  const big = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'script-flags-')), 'big.env');
  fs.writeFileSync(big, `A=${'x'.repeat(70 * 1024)}\n`);
  expect(refusal({ script: '/s.yml', dotenv: big }).message).toMatch(/over the limit/);
});
