'use strict';

const { flag } = require('../terminal/flags');

// --dashboard [PORT] (or LAB_DASHBOARD=1, or =PORT): the live page's port, k6's dashboard
// port by default. 0 lets the system choose a free one.
const DEFAULT_PORT = 5665;

function parsePort(raw) {
  if (/^(1|true|on|yes)$/i.test(raw)) return DEFAULT_PORT;
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    if (n === 0 || (n >= 1024 && n <= 65535)) return n;
  }
  throw new Error('not a port');
}

const DASHBOARD_FLAGS = {
  dashboard: flag.optional(parsePort, {
    whenAlone: String(DEFAULT_PORT),
    looksLike: /^\d+$/,
    expected: 'a port from 1024 to 65535 (or 0: any free one)',
    env: 'LAB_DASHBOARD',
  }),
};

module.exports = { DASHBOARD_FLAGS, DEFAULT_PORT, parsePort };
