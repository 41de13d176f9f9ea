'use strict';

const fs = require('node:fs');
const { own } = require('../ownership/cleanups');
const { Hpa } = require('../elastic/hpa');
const { metricOf } = require('../elastic/metrics');
const { scaleTo, rollout } = require('../elastic/replicas');
const { installApp } = require('../app/install');

// Replicas that change while the load runs (--autoscale, --rollout-at): from the load's first
// phase, the autoscaler decides at every sync (lab/elastic/hpa.js) on the replicas' metric
// over the last sync (lab/elastic/metrics.js) and the runtime adds or removes replicas, one
// change at a time; or at T into the load a rollout replaces every replica. Every decision,
// with its inputs, and every change, with its times, is a line of elastic.jsonl in the run's
// folder; the summary reads them back (lab/elastic/results.js). run.p.appNext: the new
// version a rollout starts (--app-next), resolved as --app is.
async function startElastic(run) {
  const e = run.p.elastic;
  if (!e || !run.runtime) return null;
  const { log } = run;
  // The new version's dependencies (--app-next), before the load: its replicas start at once.
  const app = run.p.appNext ?? null;
  if (app) await installApp(app, log);
  const file = run.file('elastic.jsonl');
  const write = (o) => fs.appendFileSync(file, `${JSON.stringify(o)}\n`);
  let t0 = null;
  let timers = [];
  let busy = null; // the change under way
  let stopped = false;
  const out = { initial: run.runtime.replicaNames(), decisions: [], changes: [], rollout: null, errors: [] };
  // (Read as it grows by the live page's summary, lab/run/live.js.)
  run.elastic = out;
  write({ type: 'start', at: Date.now(), initial: out.initial, autoscale: e.autoscale, rollout: e.rollout });
  const refresh = () => {
    run.state = run.runtime.readState();
  };
  const onChange = (c) => {
    const at = Date.now();
    out.changes.push({ at, ...c });
    write({ type: 'change', at, ...c });
    refresh();
  };
  const failed = (what, err) => {
    out.errors.push({ at: Date.now(), what, error: err.message });
    write({ type: 'error', at: Date.now(), what, error: err.message });
    log(`${what} failed: ${err.message}`);
  };

  // The autoscaler: one decision each sync; a change under way is let finish first (the
  // decision counts the replicas still starting as not ready, as the HPA counts pods).
  const hpa = e.autoscale ? new Hpa(e.autoscale) : null;
  const sync = () => {
    if (stopped) return;
    const now = Date.now();
    const state = run.runtime.readState();
    const names = run.runtime.replicaNames(state);
    const inEntry = new Set(state.graph.nodes.find((n) => n.name === state.graph.entry)?.upstreams || []);
    const windowMs = Math.max(1000, e.autoscale.rule.syncS * 1000);
    const values = metricOf(e.autoscale.metric, {
      samples: run.monitoring.samples,
      datagrams: run.collector?.collector?.datagrams || [],
      names,
      fromMs: now - windowMs,
      toMs: now,
      cores: (name) => coresOf(state, name),
    });
    const d = hpa.decide({
      nowS: (now - t0) / 1000,
      current: names.length,
      replicas: names.map((name) => ({ name, value: values[name], ready: inEntry.has(name) })),
    });
    const decision = { at: now, t: Math.round((now - t0) / 100) / 10, metric: e.autoscale.metric, ...d };
    out.decisions.push(decision);
    write({ type: 'decision', ...decision });
    if (d.desired !== d.current && !busy) {
      log(
        `autoscaler: ${d.current} -> ${d.desired} replica(s) (${e.autoscale.metric} ${d.average}${e.autoscale.unit} for ${d.target}${e.autoscale.unit})`,
      );
      busy = scaleTo(run.runtime, d.desired, {
        graceS: e.autoscale.graceS,
        preStopS: e.autoscale.preStopS,
        log,
        onChange,
      })
        .catch((err) => failed('scaling', err))
        .finally(() => (busy = null));
    }
  };

  const startRollout = () => {
    if (stopped) return;
    const begin = Date.now();
    log(`rollout at ${e.rollout.atS} s: replacing every replica`);
    // (Under way until it ends: a summary written meanwhile, a Ctrl-C's, says so; it once said
    // "the load ended before the rollout began" while replicas were being replaced.)
    out.rollout = { startedAt: begin, underWay: true, replicas: out.initial.length };
    busy = rollout(run.runtime, { ...e.rollout, app, log, onChange })
      .then((r) => {
        out.rollout = { startedAt: begin, endedAt: Date.now(), ...r };
        write({ type: 'rollout', ...out.rollout, steps: undefined });
        log(`rollout done in ${((Date.now() - begin) / 1000).toFixed(1)} s`);
      })
      .catch((err) => {
        out.rollout = { startedAt: begin, endedAt: Date.now(), error: err.message };
        failed('the rollout', err);
      })
      .finally(() => (busy = null));
  };

  run.onLoadStart = [
    ...(run.onLoadStart || []),
    (at) => {
      t0 = at;
      out.t0 = at;
      write({ type: 'load', at });
      if (hpa) {
        const every = Math.max(250, e.autoscale.rule.syncS * 1000);
        const t = setInterval(sync, every);
        t.unref();
        timers.push(t);
      }
      if (e.rollout) {
        const t = setTimeout(startRollout, Math.max(0, at + e.rollout.atS * 1000 - Date.now()));
        t.unref();
        timers.push(t);
      }
    },
  ];
  const stopTimers = () => {
    stopped = true;
    timers.forEach((t) => clearTimeout(t));
    timers = [];
  };
  const release = own(stopTimers);

  return {
    // After the load: no more decisions; a change under way finishes (the deployment stays
    // whole). -> what happened, for the summary.
    async finish() {
      release();
      stopTimers();
      if (busy) {
        log('waiting for the change of replicas under way to finish');
        await busy;
      }
      refresh();
      out.final = run.runtime.replicaNames();
      write({ type: 'end', at: Date.now(), final: out.final });
      return out;
    },
  };
}

// The cores a replica may use: its CPU cap's share, else one a worker.
function coresOf(state, name) {
  const cap = state.caps?.[name];
  if (cap?.cpuPct) return cap.cpuPct / 100;
  return state.graph.nodes.find((n) => n.name === name)?.workers || 1;
}

module.exports = { startElastic, coresOf };
