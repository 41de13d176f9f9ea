'use strict';

const { SCENARIOS, REQUEST_TIMEOUT_S, endpointOf, isPath } = require('../../artillery/scenarios');
const { buildPhases } = require('../../artillery/phases');
const { checkModel, featuresOf } = require('./model');
const { requestName } = require('./naming');

// The lab's own catalogue as scenarios of the model: an endpoint word (one of the lab's, or a
// path of your service) under one of the course's scenarios is one flow of one request, at
// the table's rates (artillery/scenarios.js). `request` (./request.js) is the request the
// flags make: its method, path (with --work-n's query), headers and body.
function catalogueModel({ endpoint, scenario, request, options = {} }) {
  const row = endpointOf(endpoint);
  const step = {
    name: requestName({ method: request.method, url: request.path }),
    method: request.method,
    url: request.path,
    headers: { ...request.headers },
    ...(request.body !== null && request.body !== undefined ? { body: request.body } : {}),
    capture: [],
    // The asset endpoint: each virtual user asks for one of many objects (artillery/objects.js).
    ...(row.objects ? { objects: { ...row.objects } } : {}),
  };
  const model = {
    name: `${endpoint} ${scenario}`,
    source: { kind: 'catalogue', endpoint, scenario, yours: isPath(endpoint) },
    phases: buildPhases(endpoint, scenario, options),
    variables: {},
    payload: [],
    flows: [{ name: endpoint, weight: 1, steps: [{ request: step }] }],
    ensure: SCENARIOS[scenario].ensure?.[endpoint] || [],
    timeoutS: REQUEST_TIMEOUT_S,
  };
  return checkModel({ ...model, features: featuresOf(model) });
}

module.exports = { catalogueModel };
