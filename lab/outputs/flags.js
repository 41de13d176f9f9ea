'use strict';

const { flag } = require('../terminal/flags');

// Where a run's results go besides its folder, for pipelines (docs/pipelines.md): the flags of
// scenario, capacity and study, parsed once, and passed on to the runs a command makes.
//   --out otlp=URL     metrics to an OpenTelemetry collector (URL/v1/metrics), repeatable
//   --out-interval D   how often they are exported while the run goes (default 5s)
//   --junit FILE       JUnit XML: a testsuite per run, a testcase per threshold
function parseOut(text) {
  const m = /^otlp=(.+)$/.exec(String(text).trim());
  if (!m) throw new Error('not otlp=URL');
  let url;
  try {
    url = new URL(m[1]);
  } catch {
    throw new Error('not a URL');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash) throw new Error('not an http(s) URL');
  return { kind: 'otlp', url: m[1].replace(/\/+$/, '') };
}

const OUT_FLAGS = {
  out: {
    multiple: true,
    parse: parseOut,
    expected: "otlp=URL, the collector's base (the lab posts to URL/v1/metrics)",
  },
  'out-interval': flag.duration(),
  junit: flag.outputFile(),
};

const OUT_HELP = `  --out otlp=URL   the run's metrics to an OpenTelemetry collector over OTLP/HTTP (URL/v1/metrics),
                   while it runs and at its end; repeatable (docs/pipelines.md)
  --out-interval D how often they are exported (default 5s)
  --junit FILE     JUnit XML: a testsuite per run, a testcase per threshold, a failure for a
                   crossed one; with $GITHUB_STEP_SUMMARY set, a Markdown summary is appended there
Exit codes: 0 all held, 99 a threshold was crossed, 1 the run failed, 2 usage.`;

// The flags' values, for a run a capacity search or a study makes, given its job (lab/run/
// job.js): the commands that take them share these specs, so a parsed value is the child's as
// it is (once written back as text, otlp=URL, and parsed again).
const outValues = (values) => ({ out: values.out ?? [], 'out-interval': values['out-interval'] });

module.exports = { OUT_FLAGS, OUT_HELP, outValues, parseOut };
