'use strict';

const { labError } = require('../../common/errors');

// The longest duration a flag takes: a run longer than a day is a typo more often than a plan.
const MAX_S = 24 * 3600;

// "90", "90s", "10m", "1h", "1m30s" -> seconds, above 0 and at most 24 h.
function parseDuration(text, flag = '--duration') {
  const s = String(text).trim();
  const refuse = (why) => {
    throw labError('LAB_ERR_USAGE', `${flag} ${why}, got "${text}"`);
  };
  let total;
  if (/^\d+(\.\d+)?$/.test(s)) total = Number(s);
  else {
    const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
    if (!m || s === '') refuse('takes seconds or a duration like 90s, 10m, 1h30m');
    total = Number(m[1] || 0) * 3600 + Number(m[2] || 0) * 60 + Number(m[3] || 0);
  }
  if (!(total > 0)) refuse('must be longer than 0');
  if (total > MAX_S) refuse('must be at most 24h');
  return total;
}

// Seconds as the flags take them: 600 -> "10m", 90 -> "1m30s", 2.5 -> "2.5s".
function durationText(total) {
  const v = Math.round(total * 10) / 10;
  if (v < 60 || !Number.isInteger(v)) return `${v}s`;
  const h = Math.floor(v / 3600);
  const m = Math.floor((v % 3600) / 60);
  const s = v % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

// A duration, or 0 for none ("0"): a window or a wait that may be off.
const durationOrZero = (raw) => (String(raw).trim() === '0' ? 0 : parseDuration(raw));

parseDuration.MAX_S = MAX_S;
parseDuration.orZero = durationOrZero;
parseDuration.text = durationText;
module.exports = parseDuration;
