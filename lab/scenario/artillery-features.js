'use strict';

const { FEATURES } = require('./model');

// Artillery's features as the lab runs them, in one table: what every generator does (the
// HTTP engine's own behaviour), what a script may use that each generator declares it runs
// (the scenario model's FEATURES, against each generator's `supports`), and what only
// Artillery runs. The script reader names a script's use of the last kind from here
// (./from-artillery.js), the generators refuse by these declarations (lab/generators/), and
// the docs' table is rendered from them (docs/generators-and-scenarios.md, kept in step by a
// test): one source for all three.

// What every generator does, as Artillery's HTTP engine does it (lab/generators/vu/).
const ALWAYS = Object.freeze([
  'templates as Artillery renders them: `{{ }}` and `{{{ }}}`, paths into variables, typed values, `$randomNumber()`, `$randomString()`',
  "a cookie jar per virtual user: every Set-Cookie kept, sent back as Artillery's client sends it",
  "Artillery's default headers (its user agent, or `config.defaults.headers` / `config.http.defaults.headers` in their place) and what its client adds (accept-encoding, content-type of a JSON or form body, content-length)",
  'redirects followed, each hop a request (a 303 turns a POST into a GET; `followRedirect: false` stops)',
  'a failed capture or match fails the virtual user ("Failed capture or match"), as Artillery counts it',
  "payloads read by Artillery's CSV parser (numbers cast, `delimiter`, `skipHeader`, `cast`, `options`), `config.variables` winning over them",
  'phases as Artillery reads them: duration strings (`10min`), a rate of 0 as a pause, no phases as one virtual user',
  'config.ensure judged only with the ensure plugin on, as Artillery 2 judges it (legacy `p95: N` is `p95 < N`; `maxErrorRate` counts failed virtual users)',
  "the run's verdict as Artillery's: a crossed check (exit 99, pipelines' convention, where Artillery exits 1), a failed expectation (exit 21)",
]);

// What only Artillery runs: a script using one is refused by the lab's engines, naming it
// and `--generator artillery`. (key: what the reader notes; what: the words.)
const ONLY_ARTILLERY = Object.freeze({
  engine: 'engines other than HTTP, ws and socketio (playwright...)',
  plugin: 'plugins other than ensure, expect, metrics-by-endpoint, apdex and publish-metrics',
  contentLength: "setContentLengthHeader (a formData upload's length said to be its file's size)",
  pool: 'a pool of connections shared by virtual users (http.pool)',
  jitter: 'a default think jitter',
  ensureMetric: 'checks on metrics the lab does not measure',
  socketio: 'Socket.IO emit steps in an HTTP flow (a scenario without engine: socketio)',
});

// The markdown table of the docs: a row per feature, a column per generator that runs
// scripts ('yes', or 'refused').
function featureTable(generators) {
  const gens = Object.values(generators).filter((g) => g.drives === 'requests');
  const head = `| feature | ${gens.map((g) => `\`${g.name}\``).join(' | ')} |`;
  const rule = `| --- | ${gens.map(() => '---').join(' | ')} |`;
  const rows = [
    ...ALWAYS.map((what) => [what, gens.map(() => 'yes')]),
    ...Object.entries(FEATURES).map(([key, what]) => [
      what,
      gens.map((g) => (g.supports.includes(key) ? 'yes' : 'refused')),
    ]),
    ...Object.values(ONLY_ARTILLERY).map((what) => [
      what,
      gens.map((g) => (g.supports.includes('foreign') ? 'yes' : 'refused')),
    ]),
  ];
  return [head, rule, ...rows.map(([what, cells]) => `| ${what} | ${cells.join(' | ')} |`)].join('\n');
}

module.exports = { ALWAYS, ONLY_ARTILLERY, featureTable };
