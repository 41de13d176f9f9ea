'use strict';

const path = require('node:path');
const yaml = require('js-yaml');
const { encodeObjects } = require('./objects');
const { ENDPOINTS, REQUEST_TIMEOUT_S } = require('./scenarios');
const { buildPhases } = require('./phases');

// A plain Artillery 2 script for one endpoint and scenario: `npx artillery run` accepts it
// on its own. The lab adds its progress plugin only when it runs the script itself.
function buildScript({ endpoint, scenario, target, query = null, ...phaseOptions }) {
  const script = {
    config: {
      target,
      phases: buildPhases(endpoint, scenario, phaseOptions),
      http: { timeout: REQUEST_TIMEOUT_S },
    },
    scenarios: [{ name: endpoint, flow: [{ get: { url: pathOf(endpoint, query) } }] }],
  };
  const { objects } = ENDPOINTS[endpoint];
  if (objects) {
    // Each virtual user draws its object through the lab's processor (artillery/objects.js).
    script.config.processor = path.join(__dirname, 'plugins', 'lab-processor.js');
    script.config.variables = { labObjects: encodeObjects(objects) };
    script.scenarios[0].flow = [
      { function: 'labPickObject' },
      { get: { url: `${ENDPOINTS[endpoint].path}{{ labObject }}` } },
    ];
  }
  return script;
}

// An endpoint's path with some of its query's values changed (--work-n: /work's rounds).
function pathOf(endpoint, query = null) {
  const { path: full } = ENDPOINTS[endpoint];
  if (!query) return full;
  const [base, qs] = full.split('?');
  const params = new URLSearchParams(qs || '');
  for (const [k, v] of Object.entries(query)) params.set(k, String(v));
  return `${base}?${params}`;
}

// What the runs of an endpoint request: its path, and for the asset endpoint the objects.
const requestOf = (endpoint, query = null) => ({
  path: pathOf(endpoint, query),
  objects: ENDPOINTS[endpoint].objects || null,
});

function toYaml(script, header) {
  const comment = header ? `${header.map((l) => `# ${l}`).join('\n')}\n` : '';
  return comment + yaml.dump(script, { lineWidth: 120, noRefs: true });
}

module.exports = { buildScript, toYaml, requestOf, pathOf };
