'use strict';

const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  // compose/monitoring/statsd/udp.js is a StatsD config (an object literal StatsD evaluates), not a module.
  {
    ignores: [
      'node_modules/',
      'results/',
      '.lab/',
      '.lab-engines/',
      'coverage/',
      'test-output/',
      'compose/monitoring/statsd/',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'commonjs', globals: { ...globals.node } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_|^next$|^req$|^res$' }],
      strict: ['error', 'global'],
    },
  },
  {
    files: ['test/**/*.js', 'bench/**/*.js'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    files: ['lab/report/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
];
