'use strict';

// Artillery processor of the lab's catalogue: the asset endpoint's pick of an object. (The
// per-second counts and histograms are the lab plugin's hooks: plugins/artillery-plugin-lab.)
const { zipf, decodeObjects } = require('../objects');

// The asset endpoint: each virtual user asks for one object drawn from the popularity law
// whose spec the script carries in config.variables.labObjects (artillery/objects.js).
let pick = null;
function labPickObject(context, events, done) {
  if (!pick) pick = zipf(decodeObjects(context.vars.labObjects).count, decodeObjects(context.vars.labObjects).exponent);
  const { bytes } = decodeObjects(context.vars.labObjects);
  context.vars.labObject = `obj-${pick()}?bytes=${bytes}`;
  return done();
}

module.exports = { labPickObject };
