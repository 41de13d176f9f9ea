'use strict';

const { defineGenerator } = require('../plugin');
const { startOwn } = require('../own-process');
const { ownPlan, OWN_FLAGS, OWN_SUPPORTS } = require('../own-plan');

// The lab's closed loop: N connections, each a virtual user running the flow again as soon
// as it ended, as `wrk -c` and k6's virtual users do, for the scenario's length, --duration
// or --requests.
module.exports = defineGenerator({
  name: 'closed',
  order: 2,
  what: "the lab's closed loop: N connections, each sending when answered (wrk -c, k6's VUs)",
  loop: 'closed',
  drives: 'requests',
  precision: "microseconds, HdrHistogram, timed from each request's send",
  flags: OWN_FLAGS,
  // (Not the ws or socketio engines' scenarios: a closed loop's connections are HTTP ones.)
  supports: OWN_SUPPORTS.filter((f) => f !== 'ws' && f !== 'socketio'),
  plan(model, ctx) {
    const scripted = model.phases.reduce((a, ph) => a + ph.duration, 0);
    const durationS = ctx.values.duration ?? (ctx.values.requests ? undefined : scripted);
    const connections = ctx.values.connections ?? 10;
    return {
      ...ownPlan(model, ctx),
      mode: 'closed',
      connections,
      requests: ctx.values.requests,
      durationMs: durationS !== undefined ? durationS * 1000 : undefined,
      phases: [{ name: `closed loop, ${connections} connection(s)`, duration: durationS ?? scripted }],
    };
  },
  start: (plan, o) => startOwn(plan, o),
});
