'use strict';

const { FEATURES } = require('../scenario/model');

// A load generator is a plugin, as a balancer kind is (lab/kinds/): one file in
// lab/generators/plugins/ that says everything about it, read into one table
// (./index.js). The scenario command, its help and its refusals read that table; adding a
// generator is adding a file.
//
//   name, what      its --generator name and one line on it (order: its place in lists)
//   loop            'open' (arrivals at their due times) or 'closed' (N connections)
//   drives          'requests' (the scenario model's flows) or 'participants' (signaling)
//   precision       how its latencies are measured, for every summary and report
//   flags           { name: spec } the flags only it (and the generators declaring the same
//                   name) takes, with their help lines: --keepalive is fast's and closed's
//                   (a spec's `needs`: another flag it makes sense only with)
//   supports        what it can run: the model's features (lab/scenario/model.js FEATURES)
//                   and 'targets' (several addresses: --balancer none), 'load-nodes',
//                   'rates' (arrival rates: --rate-scale), 'foreign' (what only Artillery
//                   runs: it runs a user's script as Artillery itself would)
//   plan(model, ctx)    what it runs: ctx { target, targets, values, statsd, durationS,
//                       scripted (the scenario's length), signal (the stages) }
//   start(plan, { dir, onRecord })  -> { pid, workers, done: Promise<{ records, status }>,
//                                        stop() }, emitting the lab's neutral records
//                                        (lab/measure/records.js)
// Every feature of the scenario model, which a generator may declare it runs.
const MODEL_FEATURES = Object.freeze(Object.keys(FEATURES));
const NEED = ['name', 'what', 'loop', 'drives', 'precision', 'plan', 'start'];
const SUPPORTS = [...MODEL_FEATURES, 'targets', 'load-nodes', 'rates', 'foreign'];

function defineGenerator(g) {
  for (const k of NEED) if (g[k] === undefined) throw new Error(`generator ${g.name || '?'}: no ${k}`);
  if (!['open', 'closed'].includes(g.loop)) throw new Error(`generator ${g.name}: loop is open or closed`);
  if (!['requests', 'participants'].includes(g.drives))
    throw new Error(`generator ${g.name}: drives requests or participants`);
  for (const s of g.supports || []) if (!SUPPORTS.includes(s)) throw new Error(`generator ${g.name}: supports ${s}?`);
  for (const [name, spec] of Object.entries(g.flags || {})) {
    if (!spec.help) throw new Error(`generator ${g.name}: --${name} has no help line`);
  }
  return Object.freeze({ flags: {}, supports: [], ...g });
}

module.exports = { defineGenerator, SUPPORTS, MODEL_FEATURES };
