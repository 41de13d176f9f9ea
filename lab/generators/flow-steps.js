'use strict';

// A scenario model's flows (lab/scenario/model.js) prepared once per engine thread for the
// hot path: each request step with its method, and its path, headers and body as fixed
// values where they hold no template (the catalogue's one request always), rendered per
// virtual user where they do. Virtual users draw their flow by weight and their variables
// (config variables, a payload's row) when they start.
const { render, renderDeep, hasTemplate } = require('../scenario/template');
const { rowPicker } = require('../scenario/payload');
const { pathPicker } = require('../../artillery/objects');

function prepareRequest(r) {
  const query = r.query ? Object.entries(r.query) : null;
  const templated =
    hasTemplate(r.url) ||
    Object.values(r.headers || {}).some(hasTemplate) ||
    (r.body !== undefined && hasTemplate(r.body)) ||
    (r.json !== undefined && JSON.stringify(r.json).includes('{{')) ||
    (query && query.some(([, v]) => hasTemplate(String(v))));
  const contentType =
    r.json !== undefined && !r.headers?.['content-type'] ? { 'content-type': 'application/json' } : {};
  const baseHeaders = { 'user-agent': 'node-deploy-lab', ...contentType, ...(r.headers || {}) };
  const bodyOf = (vars) => {
    if (r.json !== undefined) return Buffer.from(JSON.stringify(vars ? renderDeep(r.json, vars) : r.json));
    if (r.body !== undefined && r.body !== null) return Buffer.from(vars ? render(r.body, vars) : r.body);
    return null;
  };
  const pathOf = (vars) => {
    const p = vars ? render(r.url, vars) : r.url;
    if (!query) return p;
    const qs = new URLSearchParams(query.map(([k, v]) => [k, vars ? render(String(v), vars) : String(v)]));
    return `${p}${p.includes('?') ? '&' : '?'}${qs}`;
  };
  const headersWith = (body, vars) => {
    const h = vars
      ? Object.fromEntries(Object.entries(baseHeaders).map(([k, v]) => [k, render(v, vars)]))
      : baseHeaders;
    return body ? { ...h, 'content-length': String(body.length) } : h;
  };
  // Fixed parts computed once; a templated step renders them for each virtual user.
  const fixedBody = templated ? null : bodyOf(null);
  // (`fixed`: the same object for every virtual user, so its bytes can be kept: keepalive/.)
  const fixed = templated
    ? null
    : { path: pathOf(null), headers: headersWith(fixedBody, null), body: fixedBody, fixed: true };
  const objects = r.objects ? pathPicker(r.url, r.objects) : null;
  return {
    kind: 'request',
    name: r.name,
    method: r.method,
    captures: r.capture && r.capture.length ? r.capture : null,
    // { path, headers, body } of this request for a virtual user's variables.
    parts(vars) {
      if (objects) return { ...fixed, path: objects(), fixed: false };
      if (fixed) return fixed;
      const body = bodyOf(vars);
      return { path: pathOf(vars), headers: headersWith(body, vars), body };
    },
  };
}

function prepareSteps(steps) {
  return steps.map((s) => {
    if (s.request) return prepareRequest(s.request);
    if (s.think !== undefined) return { kind: 'think', ms: s.think * 1000 };
    return { kind: 'loop', count: s.loop.count, steps: prepareSteps(s.loop.steps) };
  });
}

// The flows of a model, a weighted draw among them, and each virtual user's first variables.
function prepareFlows(model, random = Math.random) {
  const flows = model.flows.map((f) => ({ name: f.name, steps: prepareSteps(f.steps) }));
  const total = model.flows.reduce((a, f) => a + f.weight, 0);
  const cumulative = [];
  let sum = 0;
  for (const f of model.flows) cumulative.push((sum += f.weight / total));
  const pickers = (model.payload || []).map((p) => rowPicker(p, random));
  const variables = Object.entries(model.variables || {});
  const needsVars =
    pickers.length > 0 ||
    variables.length > 0 ||
    JSON.stringify(model.flows).includes('{{') ||
    model.flows.some((f) => JSON.stringify(f.steps).includes('"capture":[{'));
  return {
    flows,
    pick() {
      if (flows.length === 1) return flows[0];
      const u = random();
      return flows[cumulative.findIndex((c) => u < c)] || flows[flows.length - 1];
    },
    // A virtual user's variables: each list variable drawn at random, each payload's row.
    vars() {
      if (!needsVars) return null;
      const vars = {};
      for (const [k, v] of variables) vars[k] = Array.isArray(v) ? v[Math.floor(random() * v.length)] : v;
      for (const p of pickers) Object.assign(vars, p());
      return vars;
    },
    // Whether a virtual user sends more than one request (it then keeps one connection).
    multi: model.flows.some((f) => f.steps.length > 1 || f.steps.some((s) => s.loop)),
  };
}

module.exports = { prepareFlows, prepareRequest };
