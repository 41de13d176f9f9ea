'use strict';

const path = require('node:path');
const { CHROMIUM } = require('../paths');
const { assertChromiumForPlaywright } = require('../chromium');
const { toArtillery } = require('../scenario/to-artillery');
const { prepareScript } = require('../scenario/from-artillery');

// What Artillery runs: a user's own script (--script) as Artillery itself would run it, with
// only its target (the deployment's, or --target) and its phases (--scale, --rate-scale)
// changed and the lab's plugin added; or the lab's catalogue as a plain script
// (lab/scenario/to-artillery.js). Its files (a processor, a payload) are named from where the
// script was, since the lab writes its copy into the run folder.
function artilleryScript(model, ctx) {
  if (model.source.kind !== 'artillery') return { script: toArtillery(model, { target: ctx.target }) };
  const file = model.source.file;
  const dir = path.dirname(file);
  // (The script flags it was read with, --config, --environment, --overrides, --payload,
  // --variables, --scenario-name..., applied here as Artillery would: the lab sets the phases
  // and the target after them; the environment's name stays a variable.)
  const options = model.source.options || {};
  const environment = options.environment;
  const script = prepareScript(file, { ...options, env: model.env ?? null });
  delete script.config.environments;
  // (A script of ws scenarios only: its target as a WebSocket URL, which Artillery's ws engine
  // asks for, where the lab's is the deployment's http:// one.)
  const wsOnly = model.flows.length > 0 && model.flows.every((f) => f.engine === 'ws');
  const target = wsOnly ? ctx.target.replace(/^http/, 'ws') : ctx.target;
  script.config = { ...script.config, target, phases: model.phases.map(artilleryPhase) };
  if (environment) script.config.variables = { ...script.config.variables, $environment: environment };
  if (typeof script.config.processor === 'string') script.config.processor = path.resolve(dir, script.config.processor);
  if (script.config.payload) {
    const fix = (p) => ({ ...p, path: path.resolve(dir, p.path) });
    script.config.payload = Array.isArray(script.config.payload)
      ? script.config.payload.map(fix)
      : fix(script.config.payload);
  }
  for (const sc of Array.isArray(script.scenarios) ? script.scenarios : []) fromFilesAt(sc?.flow, dir);
  withChromium(script);
  return { script, from: file };
}

// A formData's files, named from the script's folder (Artillery reads fromFile from the
// folder of the script it runs, the lab's copy): made absolute, in every step of a flow,
// loops and parallel steps included. (One that begins with a template is left as written.)
function fromFilesAt(steps, dir) {
  if (!Array.isArray(steps)) return;
  for (const step of steps) {
    if (!step || typeof step !== 'object') continue;
    fromFilesAt(step.loop, dir);
    fromFilesAt(step.parallel, dir);
    for (const spec of Object.values(step)) {
      const form = spec && typeof spec === 'object' ? spec.formData : null;
      if (!form || typeof form !== 'object') continue;
      for (const v of Object.values(form)) {
        if (v && typeof v.fromFile === 'string' && !v.fromFile.startsWith('{{'))
          v.fromFile = path.resolve(dir, v.fromFile);
      }
    }
  }
}

// The Playwright engine's browser: Debian's Chromium (never one a tool downloads), headless,
// and without its sandbox when the lab runs as root (Chromium refuses to start as root with
// it). What the script sets itself is kept.
function withChromium(script) {
  const usesBrowser =
    script.config.engines?.playwright !== undefined ||
    (Array.isArray(script.scenarios) && script.scenarios.some((sc) => sc?.engine === 'playwright'));
  if (!usesBrowser) return;
  assertChromiumForPlaywright();
  const engines = { ...(script.config.engines || {}) };
  const pw = { ...(engines.playwright || {}) };
  const launch = { ...(pw.launchOptions || {}) };
  launch.executablePath ??= CHROMIUM;
  if (process.getuid?.() === 0 && !(launch.args || []).includes('--no-sandbox'))
    launch.args = [...(launch.args || []), '--no-sandbox'];
  pw.launchOptions = launch;
  engines.playwright = pw;
  script.config.engines = engines;
}

// A model phase as Artillery writes it (a pause is { pause: seconds }).
const artilleryPhase = (ph) => (ph.pause ? { name: ph.name, pause: ph.duration } : { ...ph });

module.exports = { artilleryScript };
