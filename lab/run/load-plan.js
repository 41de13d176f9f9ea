'use strict';

// The load of a scenario run, as its command line asks it (npm run scenario): the generator
// that must run it (by its own declarations), the thresholds judged, the Node the service runs
// on (--node), --profile's window and --autoscale / --rollout-at, each checked against the
// load's length. Each refusal is the command line's, with its code.

const { SCENARIOS } = require('../../artillery/scenarios');
const { GENERATORS, assertRuns } = require('../generators');
const { parseThreshold } = require('../results/thresholds');
const { requestNames } = require('../scenario/model');
const { refuse } = require('../scenario/what');
const { nodesOf } = require('../runtime/node-flag');
const { profileOf } = require('../profile/flags');
const { profileWindow } = require('../profile/window');
const { elasticOf } = require('../elastic/flags');

// The generator (lab/generators/): the one asked, which must run what the run asks of it,
// by its own declarations.
function generatorOf(values, given, what, { runtime }) {
  const name = values.generator ?? (what.signal ? 'signal' : 'artillery');
  const g = GENERATORS[name];
  if (what.signal !== (g.drives === 'participants')) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'generator',
      name,
      what.signal
        ? 'the signal endpoint runs with --generator signal (the default for it)'
        : 'it is for the signal endpoint',
    );
  }
  const asks = [];
  if (values.balancer === 'none')
    asks.push({ needs: 'targets', text: '--balancer none (the generator spreads over the replicas itself)' });
  if (values['load-nodes'] !== undefined)
    asks.push({ needs: 'load-nodes', text: "--load-nodes (the lab's own generator on several nodes)" });
  for (const f of ['rate-scale', 'rate', 'phases']) {
    if (given.has(f) && !what.signal)
      asks.push({ needs: 'rates', text: `--${f} (arrival rates; a closed loop has none: --connections)` });
  }
  assertRuns(g, { given, model: what.model, asks });
  // A flag the run would ignore is a mistake worth saying, not a silent no-op.
  const usesDuration = values.rate !== undefined || (!values.script && SCENARIOS[what.words.scenario]?.usesDuration);
  if (given.has('duration') && g.loop === 'open' && !usesDuration && !what.signal) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'duration',
      null,
      `it sets the length of the endurance scenario (or of a closed loop); ${values.script ? "the script's phases set its length" : `${what.words.scenario} has fixed phases`} (use --scale to stretch or shrink them)`,
    );
  }
  if (values['load-nodes'] !== undefined) {
    // (LAB_LOAD_NODES=local: the nodes are processes of this machine, to try the coordination.)
    if (!values.target && runtime !== 'swarm' && process.env.LAB_LOAD_NODES !== 'local') {
      refuse(
        'LAB_ERR_NOT_ON_ENGINE',
        `--load-nodes with --engine ${runtime}`,
        `it runs the generator as tasks of a swarm, and --engine ${runtime} has none: deploy with --engine swarm (the lab's VM cluster: npm run cluster -- up, then eval "$(npm run -s cluster -- env)"), or give --target with DOCKER_HOST naming a swarm manager`,
      );
    }
    if (values.balancer === 'none')
      refuse(
        'LAB_ERR_FLAGS_EXCLUDE',
        'load-nodes',
        'balancer none',
        'the nodes reach the deployment through its entry, and --balancer none has none',
      );
    if (what.model?.features.includes('hooks'))
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'load-nodes',
        values['load-nodes'],
        "the script's before and after sections run once, on one machine: run it without --load-nodes",
      );
  }
  return name;
}

// The thresholds: the scenario's own (a catalogue row's, a script's config.ensure) and
// --ensure's; one on a request of no such name is refused, naming the ones there are.
// (A user's script run by Artillery: Artillery judges its checks itself, and the run
// follows its verdict; the lab judges --ensure on top.)
function thresholdsOf(model, values, generator) {
  const own = generator === 'artillery' && model?.source.kind === 'artillery' ? [] : model?.ensure || [];
  const thresholds = [...own.map(parseThreshold), ...values.ensure];
  const names = model ? requestNames(model) : [];
  for (const t of thresholds) {
    if (t.name !== undefined && !names.includes(t.name)) {
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'ensure',
        `"${t.text}"`,
        `the scenario has no request named "${t.name}"; its requests: ${names.join(', ')}`,
      );
    }
  }
  return thresholds;
}

// --node V: the service on that Node (lab/runtime/node-versions.js), on the local engine, for a
// run that deploys it. One version: capacity --node compares several.
function nodeOf(values, target) {
  if (!values.node) return null;
  if (values.node.length > 1)
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'node',
      values.node.join(','),
      'one version for a scenario; capacity --node 22,24 compares versions side by side',
    );
  if (target)
    refuse('LAB_ERR_FLAGS_EXCLUDE', 'node', 'target', '--node deploys the service on it; --target is up already');
  if ((values.engine ?? 'local') !== 'local')
    refuse(
      'LAB_ERR_NOT_ON_ENGINE',
      '--node',
      "the local engine's processes run on it (the images bring their own Node)",
    );
  return nodesOf(values)[0];
}

// How long the load lasts, in seconds, as the generator will run it (null: until its requests
// are answered): the closed loop's --duration, else the phases'. (A rollout after the end of
// a closed loop's --duration was once taken, then failed with "the rollout did not finish".)
function loadSeconds(values, what) {
  if (what.signal) return what.signalPlan.phases.reduce((a, ph) => a + ph.duration, 0);
  const scripted = what.model.phases.reduce((a, ph) => a + ph.duration, 0);
  if (values.generator === 'closed') return values.duration ?? (values.requests ? null : scripted);
  return scripted;
}

// The phases the profile's window is found in: those the generator runs (lab/generators/
// plugins: the closed loop's one phase of its length).
function loadPhases(values, what, generator) {
  if (what.signal) return what.signalPlan.phases;
  if (GENERATORS[generator].loop === 'closed') {
    const s = loadSeconds({ ...values, generator: 'closed' }, what);
    return [{ name: 'closed loop', duration: s ?? what.model.phases.reduce((a, ph) => a + ph.duration, 0) }];
  }
  return what.model.phases;
}

// --profile, with its window found now, in the load as planned: a window past the load's end
// is refused here, with the load's length (it once ran, "completed", with no profile and one
// line on stderr).
function profilePlan(values, what, generator) {
  const profile = profileOf(values);
  if (!profile) return null;
  try {
    return {
      ...profile,
      at: profileWindow(loadPhases(values, what, generator), { given: profile.window, seconds: profile.seconds }),
    };
  } catch (err) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'profile-window',
      `${values['profile-window'].fromS}-${values['profile-window'].toS}`,
      err.message,
    );
  }
}

// --autoscale, --rollout-at (lab/elastic/flags.js), with what only the scenario knows: the
// load's length and the --scale of its times.
function elasticPlan(values, what) {
  const e = elasticOf(values, {
    runtime: values.engine ?? 'local',
    probe: !values['no-probe'],
    scale: values.scale ?? 1,
    durationS: what.model ? loadSeconds(values, what) : null,
    hasApp: Boolean(values.app),
  });
  if (!e) return null;
  if (values.target)
    refuse(
      'LAB_ERR_FLAGS_EXCLUDE',
      values.autoscale !== undefined ? 'autoscale' : 'rollout-at',
      'target',
      '--autoscale and --rollout-at change the deployment the lab deploys',
    );
  if (what.signal)
    refuse(
      'LAB_ERR_FLAG_VALUE',
      values.autoscale !== undefined ? 'autoscale' : 'rollout-at',
      null,
      "it is for HTTP loads, not the signal endpoint's participants",
    );
  return e;
}

module.exports = { generatorOf, thresholdsOf, nodeOf, profilePlan, elasticPlan };
