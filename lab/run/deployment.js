'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { runtimeFor } = require('../runtime');
const deploymentNodes = require('../runtime/nodes');
const nodeReadings = require('../monitoring/node-readings');
const { own } = require('../ownership/cleanups');
const { downHint } = require('../../common/errors');
const { startCollector, statsdLines } = require('../probe/collector');
const { installNode } = require('../runtime/node-versions');

// The deployment: up (owned until it is, even with --keep), unless a target is given, and
// what the run watches of it (its nodes, their caps), the same for a --target at this state
// folder's own deployment.
async function deploy(run) {
  const { p, log } = run;
  const { deployment, values } = p;
  const runtime = run.runtime;
  let state = null;
  let target = p.target;
  if (runtime) {
    const releaseDeployment = own(() => runtime.down().then(() => log('deployment stopped')));
    log(`deploying ${deployment.label}${p.runtime === 'local' ? '' : ` on ${p.runtime}`}`);
    // (--node: its version installed into the lab's cache on first use, said.)
    const node = p.node ? installNode(p.node, { log }) : null;
    state = await runtime.up(deployment, p.ports, {
      graph: p.graph,
      caps: p.caps,
      bbox: { key: values.key ?? '' },
      statsd: run.monitoring.statsd,
      serviceEnv: { ...p.serviceEnv, STATSD_PREFIX: `${run.prefix}.service` },
      connections: p.connections,
      placement: p.placement,
      probe: !values['no-probe'],
      // (--profile: the stores count what they spend their time on, and the service's
      // processes keep V8's profiler from their start, at the interval the profile asks.)
      statements: Boolean(p.profile),
      profile: p.profile ? (p.profile.us ?? 1000) : null,
      ...(node ? { serviceNode: node.binary } : {}),
    });
    target = state.url;
    // The entry's rendered config beside the results (nginx.conf, haproxy.cfg, Caddyfile).
    const conf = state.entryConf || state.nginxConf;
    if (conf) fs.copyFileSync(conf, run.file(path.basename(conf)));
    if (values.keep) {
      releaseDeployment();
      log(`the deployment stays up at ${target} (${downHint(p.ctx.stateDir)} to stop it)`);
    }
  }
  run.writeJson(
    'deployment.json',
    state
      ? {
          ...deployment,
          engine: p.runtime,
          url: state.url,
          ports: state.ports,
          processes: state.processes,
          graph: state.graph,
          caps: state.caps,
        }
      : { target },
  );
  run.state = state;
  run.target = target;
  // No balancer: the generator spreads its requests over every replica's address.
  run.targets = state && state.urls && state.urls.length > 1 ? state.urls : null;
  // --target at this state folder's own deployment: its nodes are watched, not deployed.
  const watched = runtime ? null : watchedDeployment(p);
  if (watched) log(`${target} is this state folder's ${watched.state.deployment.label}: its nodes are watched`);
  run.watched = watched;
  // (Read from run.state each time: replicas may come and go under load, lab/run/elastic.js.)
  run.nodesOf = state ? () => deploymentNodes(run.state)() : watched ? deploymentNodes(watched.state) : () => ({});
  run.collector = await collect(run, state ?? watched?.state ?? null);
  // Caps, cgroup accounting, edges' caches and the runtime probe's figures, over the run's own
  // window (after a warm-up).
  run.readings = state
    ? nodeReadings(runtime, state, run.collector)
    : nodeReadings(watched?.runtime, watched?.state, run.collector);
  run.addressNames = addressNames(state ?? watched?.state);
}

// The runtime probe's collector (lab/probe/), where the deployment's processes send: started
// for the run, stopped with it. { collector, note }: a deployment without the probe, or a port
// the collector cannot have, leaves the figures out with the reason.
async function collect(run, state) {
  if (!state) return { collector: null, note: null };
  const probe = state.probe;
  if (!probe) return { collector: null, note: `the ${state.runtime} runtime does not run the probe` };
  if (probe.off) return { collector: null, note: probe.off };
  const statsd = run.monitoring?.send && run.prefix ? (d) => run.monitoring.send(statsdLines(run.prefix, d)) : null;
  const c = await startCollector({ listen: probe.listen, file: run.file('runtime.jsonl'), onDatagram: statsd });
  if (c.error) {
    run.log(`runtime probe: no figures (${c.error})`);
    return { collector: null, note: c.error };
  }
  own(() => c.close());
  return { collector: c, note: null };
}

// --target at the lab's own local deployment in this state folder (a study's group deploys
// once and loads it level after level): nothing is deployed or stopped here, but its nodes are
// sampled and their groups read as if this run had deployed them, so the node table says
// what the servers used. Anything else behind --target is somebody else's: not looked at.
function watchedDeployment(p) {
  if (!p.target) return null;
  const rt = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host });
  let state;
  try {
    state = rt.readState();
  } catch {
    return null;
  }
  if (!state || state.runtime !== 'local' || !state.url || new URL(state.url).origin !== p.target) return null;
  return rt.isUp() ? { runtime: rt, state } : null;
}

// host:port -> node name, for the nodes of a local deployment that listen on a port.
function addressNames(state) {
  if (!state?.graph) return null;
  const out = {};
  for (const n of state.graph.nodes) if (n.port) out[`${state.host}:${n.port}`] = n.name;
  return out;
}

module.exports = { deploy, watchedDeployment, addressNames };
