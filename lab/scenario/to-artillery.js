'use strict';

const path = require('node:path');
const yaml = require('js-yaml');
const { encodeObjects } = require('../../artillery/objects');

// A model as a plain Artillery 2 script: `npx artillery run` accepts it on its own (what
// --print shows, and what the artillery generator runs for a model that is not a user's own
// script, which it runs as it is: lab/generators/artillery.js).
const ROOT = path.join(__dirname, '..', '..');

function stepOf(step) {
  if (step.think !== undefined) return { think: step.think };
  if (step.loop) return { loop: step.loop.steps.map(stepOf), count: step.loop.count };
  const r = step.request;
  const url = r.objects ? `${r.url}{{ labObject }}` : r.url;
  if (
    r.method === 'GET' &&
    !r.body &&
    r.json === undefined &&
    !Object.keys(r.headers || {}).length &&
    !r.capture?.length &&
    !r.query
  ) {
    return { get: { url } };
  }
  const spec = { url };
  if (Object.keys(r.headers || {}).length) spec.headers = { ...r.headers };
  if (r.query) spec.qs = { ...r.query };
  if (r.json !== undefined) spec.json = r.json;
  if (r.body !== undefined && r.body !== null) spec.body = r.body;
  if (r.capture?.length) spec.capture = r.capture.map((c) => ({ json: c.json, as: c.as }));
  if (r.nameGiven) spec.name = r.name;
  return { [r.method.toLowerCase()]: spec };
}

function toArtillery(model, { target }) {
  const objects = model.flows.flatMap((f) => f.steps).find((s) => s.request?.objects)?.request.objects;
  const config = {
    target,
    phases: model.phases.map((ph) => ({ ...ph })),
    http: { timeout: model.timeoutS },
  };
  if (Object.keys(model.variables).length) config.variables = { ...model.variables };
  if (objects) {
    // Each virtual user draws its object through the lab's processor (artillery/objects.js).
    config.processor = path.join(ROOT, 'artillery', 'plugins', 'lab-processor.js');
    config.variables = { ...(config.variables || {}), labObjects: encodeObjects(objects) };
  }
  if (model.payload.length) {
    config.payload = model.payload.map((p) => ({
      path: p.file,
      fields: [...p.fields],
      order: p.order,
      skipHeader: p.skipHeader,
    }));
  }
  return {
    config,
    scenarios: model.flows.map((f) => ({
      name: f.name,
      ...(model.flows.length > 1 ? { weight: f.weight } : {}),
      // (The asset endpoint: the virtual user draws its object first.)
      flow: [...(objects ? [{ function: 'labPickObject' }] : []), ...f.steps.map(stepOf)],
    })),
  };
}

function toYaml(script, header) {
  const comment = header ? `${header.map((l) => `# ${l}`).join('\n')}\n` : '';
  return comment + yaml.dump(script, { lineWidth: 120, noRefs: true });
}

module.exports = { toArtillery, toYaml };
