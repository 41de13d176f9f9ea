'use strict';

const path = require('node:path');

// How a deployment's service processes get the runtime probe (probe/preload.js): Node's own
// NODE_OPTIONS preloads it into every Node process the start line makes (npm's own process
// leaves itself out; cluster workers inherit it), LAB_PROBE says where it sends, and
// LAB_PROBE_NODE which node of the graph the process belongs to. The same three variables in
// every runtime; only the file's path and the address differ (lab/runtime/*). LAB_PROBE_PROFILE,
// when the run will profile (--profile), is the sampling interval in µs: the probe keeps V8's
// profiler running from the process's start (see probe/preload.js, keepProfiler).
const PRELOAD = path.join(__dirname, '..', '..', 'probe', 'preload.js');
// Where images hold it: the lab's service image keeps the checkout's layout under /app; an
// image of your service gets it beside its files, as .cjs so that a "type": "module" package
// still loads it as CommonJS.
const IN_SERVICE_IMAGE = '/app/probe/preload.js';
const IN_APP_IMAGE = '.lab-probe.cjs';

// A path as one NODE_OPTIONS word: quoted, with its quotes and backslashes escaped (Node's
// parser reads \" and \\ inside a quoted word).
const quoted = (p) => `"${String(p).replace(/[\\"]/g, (c) => `\\${c}`)}"`;

// The environment of one service node: { NODE_OPTIONS, LAB_PROBE, LAB_PROBE_NODE }, keeping
// NODE_OPTIONS the process would have had (before: the caller's, e.g. the user's shell).
function probeEnv({ node, address, preload = PRELOAD, before = '', profileUs = null }) {
  const own = `--require ${quoted(preload)}`;
  return {
    NODE_OPTIONS: before && before.trim() ? `${before.trim()} ${own}` : own,
    LAB_PROBE: address,
    LAB_PROBE_NODE: node,
    ...(profileUs ? { LAB_PROBE_PROFILE: String(profileUs) } : {}),
  };
}

module.exports = { probeEnv, PRELOAD, IN_SERVICE_IMAGE, IN_APP_IMAGE, quoted };
