'use strict';

const path = require('node:path');
const { appOf } = require('../../../lab/app/flags');

// The flags of your own service, checked together once: each refusal names the flag and what
// to add. (--with itself is parsed by lab/stores' parseWith: test/lab/stores/index.test.js.)
const ledger = path.join(__dirname, '..', '..', 'fixtures', 'apps', 'ledger');

test('the stores and the set-up are for your own service', () => {
  for (const [flag, value] of [
    ['with', ['postgres']],
    ['app-setup', 'npm run migrate'],
  ]) {
    expect(() => appOf({ [flag]: value })).toThrow(
      new RegExp(`--${flag} needs --app: it is for your own service \\(--app DIR\\)`),
    );
  }
  expect(appOf({})).toBeNull();
});

test('--keep-data and --db-max-connections need the stores they are about', () => {
  expect(() => appOf({ app: ledger, 'keep-data': true })).toThrow(
    /--keep-data needs --with: it is for the stores of --with/,
  );
  expect(() => appOf({ app: ledger, 'db-max-connections': 20 })).toThrow(
    /--db-max-connections needs --with: it is for the stores/,
  );
  expect(() => appOf({ app: ledger, with: ['redis'], 'db-max-connections': 20 })).toThrow(
    /PostgreSQL's \(--with postgres\)/,
  );
  expect(() => appOf({ app: ledger, with: ['postgres'], 'app-setup': '  ' })).toThrow(
    /--app-setup: empty; give the line to run/,
  );
  expect(appOf({ app: ledger, with: ['postgres'], 'db-max-connections': 20, 'keep-data': true }).dir).toBe(ledger);
});
