'use strict';

const path = require('node:path');
const yaml = require('js-yaml');
const { encodeObjects } = require('./objects');
const { endpointOf, REQUEST_TIMEOUT_S } = require('./scenarios');
const { buildPhases } = require('./phases');

// A plain Artillery 2 script for one endpoint and scenario: `npx artillery run` accepts it
// on its own. The lab adds its progress plugin only when it runs the script itself.
// `request` (lab/scenario/request.js): the method, headers and body of a path's request.
function buildScript({ endpoint, scenario, target, query = null, request = null, ...phaseOptions }) {
  const script = {
    config: {
      target,
      phases: buildPhases(endpoint, scenario, phaseOptions),
      http: { timeout: REQUEST_TIMEOUT_S },
    },
    scenarios: [{ name: endpoint, flow: [stepOf(pathOf(endpoint, query), request)] }],
  };
  const { objects } = endpointOf(endpoint);
  if (objects) {
    // Each virtual user draws its object through the lab's processor (artillery/objects.js).
    script.config.processor = path.join(__dirname, 'plugins', 'lab-processor.js');
    script.config.variables = { labObjects: encodeObjects(objects) };
    script.scenarios[0].flow = [
      { function: 'labPickObject' },
      { get: { url: `${endpointOf(endpoint).path}{{ labObject }}` } },
    ];
  }
  return script;
}

// An endpoint's path with some of its query's values changed (--work-n: /work's rounds).
function pathOf(endpoint, query = null) {
  const { path: full } = endpointOf(endpoint);
  if (!query) return full;
  const [base, qs] = full.split('?');
  const params = new URLSearchParams(qs || '');
  for (const [k, v] of Object.entries(query)) params.set(k, String(v));
  return `${base}?${params}`;
}

// What the runs of an endpoint request: its path, and for the asset endpoint the objects.
const requestOf = (endpoint, query = null) => ({
  path: pathOf(endpoint, query),
  objects: endpointOf(endpoint).objects || null,
});

// One Artillery step of a request: `get: { url }`, or its method with headers and body.
function stepOf(url, request) {
  if (!request || (request.method === 'GET' && !request.body && !Object.keys(request.headers).length)) {
    return { get: { url } };
  }
  const spec = { url };
  if (Object.keys(request.headers).length) spec.headers = { ...request.headers };
  if (request.body !== null) spec.body = request.body;
  return { [request.method.toLowerCase()]: spec };
}

function toYaml(script, header) {
  const comment = header ? `${header.map((l) => `# ${l}`).join('\n')}\n` : '';
  return comment + yaml.dump(script, { lineWidth: 120, noRefs: true });
}

module.exports = { buildScript, toYaml, requestOf, pathOf, stepOf };
