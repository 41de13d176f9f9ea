'use strict';

const { labError } = require('../common/errors');

// "90", "90s", "10m", "1h", "1m30s" -> seconds.
function parseDuration(text, flag = '--duration') {
  const s = String(text).trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
  if (!m || s === '')
    throw labError('LAB_ERR_USAGE', `${flag} takes seconds or a duration like 90s, 10m, 1h30m; got "${text}"`);
  const total = Number(m[1] || 0) * 3600 + Number(m[2] || 0) * 60 + Number(m[3] || 0);
  if (total <= 0) throw labError('LAB_ERR_USAGE', `${flag} must be longer than 0, got "${text}"`);
  return total;
}

module.exports = parseDuration;
