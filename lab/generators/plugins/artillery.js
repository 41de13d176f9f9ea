'use strict';

const { defineGenerator, MODEL_FEATURES } = require('../plugin');
const { startArtillery } = require('../artillery-events');
const { artilleryScript } = require('../artillery-script');

// Artillery 2, the course's tool: a user's script run as Artillery itself would run it (its
// own features included), or the lab's catalogue as a plain Artillery script. The lab adds
// only its plugin (per-second records, per-request metrics: artillery/plugins/).
module.exports = defineGenerator({
  name: 'artillery',
  order: 0,
  what: "Artillery 2, the course's tool (default): runs your script as Artillery would; ~5.7 ms of CPU a request",
  loop: 'open',
  drives: 'requests',
  precision: "whole milliseconds, percentiles from Artillery's sketch (capped at its max)",
  supports: [...MODEL_FEATURES, 'rates', 'foreign'],
  plan: (model, ctx) => ({
    ...artilleryScript(model, ctx),
    phases: model.phases,
    target: ctx.target,
    timeoutS: model.timeoutS,
    statsd: ctx.statsd,
    name: model.name,
    // An https:// target (--tls): Artillery trusts the run's CA (NODE_EXTRA_CA_CERTS), or
    // checks nothing when the user said so (--insecure, as its own -k).
    caFile: ctx.tls?.caFile ?? null,
    insecure: Boolean(ctx.tls?.insecure),
    // --dotenv's values, under Artillery's own environment.
    env: model.env ?? null,
  }),
  start: (plan, o) => startArtillery(plan, o),
});
