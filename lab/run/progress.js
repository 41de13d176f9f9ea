'use strict';

const { seconds, totals } = require('../measure/records');
const { progressLine } = require('../terminal/progress');

// Running totals and the last answered second, from the records so far.
function snapshot(records) {
  const secs = seconds(records).filter((s) => s.latencyMs && s.latencyMs.count);
  const t = totals(records.filter((r) => r.type !== 'done'));
  const all = seconds(records);
  const active = all.length && all[all.length - 1].signal ? all[all.length - 1].signal.active : 0;
  return { totals: t, last: secs.length ? secs[secs.length - 1].latencyMs : null, active };
}

// The progress listener of a run: it hears the generator's records and draws one line on
// stderr, redrawn every second on a terminal, else one line per ~10 s. It only renders:
// the measuring happens in the generator.
function createProgress({
  phases,
  totalS,
  closed = false,
  participants = false,
  requests = null,
  stream = process.stderr,
  // Appended to every line (the live dashboard's address, when there is one).
  suffix = '',
  env = process.env,
}) {
  const records = [];
  // The clock starts with the load: when the generator's first phase began (its first
  // arrival was due), not when the generator was asked to start (Artillery takes seconds to
  // load, load nodes tens of seconds to come).
  let startedAt = null;
  let starting = 'starting the load generator';
  const tty = Boolean(stream.isTTY);
  let lastPrinted = 0;
  const elapsed = () => (startedAt === null ? null : Math.max(0, (Date.now() - startedAt) / 1000));
  const figuresOf = () => {
    const { totals: t, last, active } = snapshot(records);
    const round = (v) => (v === null || v === undefined ? null : Math.round(v * 1000) / 1000);
    return {
      elapsedS: round(elapsed()),
      totalS,
      sent: t.launched,
      done: t.completed,
      errors: t.failed,
      ...(participants ? { connected: active } : {}),
      p99Ms: round(last?.p99),
    };
  };
  const line = () =>
    progressLine({
      elapsedS: elapsed(),
      starting,
      totalS,
      phases,
      closed,
      participants,
      requests,
      ...snapshot(records),
    }) + (suffix ? ` | ${suffix}` : '');
  // (For the library, lab/api: the live line's figures, one JSON line a second, which its
  // caller hears as 'progress' events; a person's terminal never sees them.)
  const figures = env.LAB_PROGRESS === 'json';
  const ticker = setInterval(() => {
    if (figures) stream.write(`lab-progress ${JSON.stringify(figuresOf())}\n`);
    if (tty) stream.write(`\r\x1b[K${line()}`);
    else if (Date.now() - lastPrinted >= 10000) {
      lastPrinted = Date.now();
      stream.write(`${line()}\n`);
    }
  }, 1000);
  ticker.unref();
  return {
    onRecord: (r) => {
      records.push(r);
      if (startedAt === null && r.type === 'phase' && typeof r.at === 'number') startedAt = r.at;
    },
    // What the generator waits for before its load starts (load nodes coming up).
    starting: (what) => {
      starting = what;
    },
    stop() {
      clearInterval(ticker);
      if (figures) stream.write(`lab-progress ${JSON.stringify(figuresOf())}\n`);
      stream.write(tty ? `\r\x1b[K${line()}\n` : `${line()}\n`);
    },
  };
}

module.exports = { snapshot, createProgress };
