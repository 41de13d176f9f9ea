'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { FEATURES } = require('../scenario/model');
const { needsOf } = require('../terminal/flags');

// The load generators, one file each in ./plugins (./plugin.js says what a file declares),
// in one table that the scenario command, its help and its refusals read.
const GENERATORS = {};
const dir = path.join(__dirname, 'plugins');
const plugins = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => require(path.join(dir, f)))
  // The order users see: each declares its place (the default, Artillery, first).
  .sort((a, b) => (a.order ?? 99) - (b.order ?? 99) || a.name.localeCompare(b.name));
for (const g of plugins) {
  if (GENERATORS[g.name]) throw new Error(`two generators named ${g.name}`);
  GENERATORS[g.name] = g;
}
Object.freeze(GENERATORS);

// Every generator's own flags, for the command's flag schema: one spec per name, which the
// generators declaring it share.
const GENERATOR_FLAGS = {};
for (const g of Object.values(GENERATORS)) {
  for (const [name, spec] of Object.entries(g.flags)) GENERATOR_FLAGS[name] = GENERATOR_FLAGS[name] || spec;
}

const owners = (pred) =>
  Object.values(GENERATORS)
    .filter(pred)
    .map((g) => g.name);
const either = (names) =>
  names.length === 1 ? `--generator ${names[0]}` : `--generator ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

// What a generator cannot do of a run, by name, before anything starts: a flag it does not
// take, a feature of the scenario it cannot run, an ask (several targets, load nodes,
// arrival rates) it does not support. Returns the refusal (a LabError, each kind with its own
// code in common/errors.js), or null.
function refusal(g, { given = new Set(), model = null, asks = [] }) {
  for (const name of given) {
    if (GENERATOR_FLAGS[name] && !g.flags[name]) {
      return labError('LAB_ERR_GENERATOR_FLAG', name, either(owners((x) => x.flags[name])), g.name);
    }
  }
  // (The command's flag schema refuses these first: lab/terminal/flags.js; a plan made in
  // code, a study's, is checked here too.)
  for (const name of given) {
    const needs = GENERATOR_FLAGS[name]?.needs;
    if (!needs) continue;
    const { flags, why } = needsOf(needs);
    if (!flags.some((f) => given.has(f))) return labError('LAB_ERR_FLAG_NEEDS', name, flags, why);
  }
  for (const { needs, text } of asks) {
    if (!g.supports.includes(needs))
      return labError('LAB_ERR_GENERATOR_ASK', text, either(owners((x) => x.supports.includes(needs))));
  }
  if (!model) return null;
  for (const f of model.features) {
    if (!g.supports.includes(f)) {
      return labError('LAB_ERR_GENERATOR_FEATURE', FEATURES[f], g.name, either(owners((x) => x.supports.includes(f))));
    }
  }
  const artillery = () => either(owners((x) => x.supports.includes('foreign')));
  if (model.foreign.length && !g.supports.includes('foreign')) {
    return labError('LAB_ERR_SCRIPT_FOREIGN', model.foreign[0], model.foreign.length - 1, artillery());
  }
  // A field the lab's engines do not know: a typo, or a feature of a later Artillery. Never
  // run as if it were not there (what it changes would go unsent, silently).
  if (model.unknown?.length && !g.supports.includes('foreign')) {
    return labError('LAB_ERR_SCRIPT_UNKNOWN_FIELD', model.unknown[0], model.unknown.length - 1, artillery());
  }
  return null;
}

function assertRuns(g, o) {
  const why = refusal(g, o);
  if (why) throw why;
}

// The help lines of the generators and their flags.
function generatorHelp() {
  const list = Object.values(GENERATORS)
    .map((g) => `                   ${g.name.padEnd(10)} ${g.what}`)
    .join('\n');
  const flags = Object.entries(GENERATOR_FLAGS)
    .map(([name, spec]) => {
      const left = `  --${name}${spec.boolean ? '' : ' N'}`;
      // (A flag longer than the column gets its text on the next line, never glued to it.)
      return left.length < 19 ? `${left.padEnd(19)}${spec.help}` : `${left}\n${' '.repeat(19)}${spec.help}`;
    })
    .join('\n');
  return `  --generator G    the load generator (default artillery; the signal endpoint's is signal):\n${list}\n${flags}`;
}

module.exports = { GENERATORS, GENERATOR_FLAGS, refusal, assertRuns, generatorHelp };
