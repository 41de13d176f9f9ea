'use strict';

const yaml = require('js-yaml');
const { ENDPOINTS, REQUEST_TIMEOUT_S } = require('./scenarios');
const { buildPhases } = require('./phases');

// A plain Artillery 2 script for one endpoint and scenario: `npx artillery run` accepts it
// on its own. The lab adds its progress plugin only when it runs the script itself.
function buildScript({ endpoint, scenario, target, ...phaseOptions }) {
  return {
    config: {
      target,
      phases: buildPhases(endpoint, scenario, phaseOptions),
      http: { timeout: REQUEST_TIMEOUT_S },
    },
    scenarios: [{ name: endpoint, flow: [{ get: { url: ENDPOINTS[endpoint].path } }] }],
  };
}

function toYaml(script, header) {
  const comment = header ? `${header.map((l) => `# ${l}`).join('\n')}\n` : '';
  return comment + yaml.dump(script, { lineWidth: 120, noRefs: true });
}

module.exports = { buildScript, toYaml };
