'use strict';

// Artillery processor the lab adds to the scripts it runs: it counts arrivals and responses
// per wall-clock second, and records each response time in a histogram for its second.
// Artillery's own reports come every 10 s, too coarse for a 15 s spike; these series are
// summarized by Artillery like any other metric, so each second's percentiles come from
// that second's own histogram, never from averaging.
const { zipf, decodeObjects } = require('../objects');

const second = () => Math.floor(Date.now() / 1000);

function labArrival(context, events, done) {
  events.emit('counter', `lab.arrivals.${second()}`, 1);
  return done();
}

function labResponse(req, res, context, events, done) {
  const s = second();
  events.emit('counter', `lab.responses.${s}`, 1);
  // Which replica answered, as the entry named it (X-Lab-Upstream, lab/kinds/).
  const up = res.headers && res.headers['x-lab-upstream'];
  if (up) events.emit('counter', `lab.up.${s}.${up}`, 1);
  const t = res.timings && res.timings.phases;
  if (t && typeof t.firstByte === 'number') events.emit('histogram', `lab.rt.${s}`, t.firstByte);
  return done();
}

// The asset endpoint: each virtual user asks for one object drawn from the popularity law
// whose spec the script carries in config.variables.labObjects (artillery/objects.js).
let pick = null;
function labPickObject(context, events, done) {
  if (!pick) pick = zipf(decodeObjects(context.vars.labObjects).count, decodeObjects(context.vars.labObjects).exponent);
  const { bytes } = decodeObjects(context.vars.labObjects);
  context.vars.labObject = `obj-${pick()}?bytes=${bytes}`;
  return done();
}

module.exports = { labArrival, labResponse, labPickObject };
