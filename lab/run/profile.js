'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { own } = require('../ownership/cleanups');
const { startProfiles } = require('../probe/profiles');
const { STATEMENTS } = require('../stores/statements');
const { profileWindow } = require('../profile/window');
const { treeOf, mergeTrees, topFunctions, toCpuprofile } = require('../profile/cpuprofile');

// A run's profile (--profile): over a stated window of its load (lab/profile/window.js), every
// Node process of the service is profiled through the runtime probe (lab/probe/profiles.js),
// and the data stores say what they spent their time on (lab/stores/statements.js, when the
// deployment counts it). At the end the profiles are written under profiles/ of the run's
// folder (each process's, and each node's with its workers merged) and read into the summary.
// p.profile: { window (given) or null, seconds, us }.
function startProfiling(run) {
  const plan = run.p.profile;
  if (!plan) return null;
  // (The scenario's plan found the window in the load as planned, a window past its end
  // refused there; a plan made elsewhere finds it here.)
  let window = plan.at ?? null;
  const out = { window, intervalUs: plan.us, notes: [] };
  try {
    window ??= profileWindow(run.genPlan.phases, { given: plan.window, seconds: plan.seconds });
    out.window = window;
  } catch (err) {
    // Said in the summary and its findings, not only on stderr.
    run.log(`profile: no window (${err.message})`);
    out.notes.push(`no profile: no window could be taken (${err.message})`);
    return { window: null, finish: async () => ({ profile: out, stores: {} }) };
  }
  const state = run.state ?? run.watched?.state ?? null;
  const stores = statementStores(state);
  let handle = null;
  let storesAtEnd = null;
  let timers = [];
  let begun = null;
  let windowEndsAt = 0;
  const readStores = () => Promise.all(stores.map(async (s) => [s.name, await STATEMENTS[s.kind].read(s.addr)]));

  const begin = async () => {
    const collector = run.collector?.collector;
    const ms = (window.toS - window.fromS) * 1000;
    run.log(`profiling the service's processes for ${ms / 1000} s (${window.fromS}-${window.toS} s of the load)`);
    await Promise.all(
      stores.map((s) =>
        STATEMENTS[s.kind].reset(s.addr).then((r) => r.error && out.notes.push(`${s.name}: ${r.error}`)),
      ),
    );
    if (!collector) out.notes.push(`no CPU profile: ${run.collector?.note ?? 'the runtime probe is not running'}`);
    else {
      const h = await startProfiles(collector, { ms, us: plan.us });
      if (h.error) out.notes.push(`no CPU profile: ${h.error}`);
      else handle = h;
    }
    windowEndsAt = Date.now() + ms;
    const t = setTimeout(() => {
      storesAtEnd = readStores();
    }, ms);
    t.unref();
    timers.push(t);
  };
  run.onLoadStart = [
    ...(run.onLoadStart || []),
    (at) => {
      const t = setTimeout(() => (begun = begin()), Math.max(0, at + window.fromS * 1000 - Date.now()));
      t.unref();
      timers.push(t);
    },
  ];
  const release = own(() => timers.forEach(clearTimeout));

  return {
    window,
    // After the load: the profiles and statements gathered, written, read. -> the summary's
    // `profile` and each store's statements, or null when the window never began.
    async finish() {
      release();
      timers.forEach(clearTimeout);
      timers = [];
      if (!begun)
        return { profile: { ...out, notes: [...out.notes, 'the load ended before the window began'] }, stores: {} };
      await begun;
      const got = handle ? await handle.end() : { profiles: [], missing: [], told: 0, dropped: 0 };
      // A window that ends with the load (a ramp's busiest seconds are its last) has its end
      // timer cleared with the load: the statements are read now, at the load's end. (Every
      // statement of such a run was once lost, with no note.)
      if (!storesAtEnd && stores.length) {
        storesAtEnd = readStores();
        const early = Math.round((windowEndsAt - Date.now()) / 1000);
        if (early >= 1)
          out.notes.push(
            `the load ended ${early} s before the window's end: the statements are those up to the load's end`,
          );
      }
      const statements = Object.fromEntries((await (storesAtEnd ?? Promise.resolve([]))).filter(Boolean));
      if (handle && got.missing.length)
        out.notes.push(
          `${got.missing.length} of ${got.told} process(es) sent no profile: ${got.missing.map((m) => `${m.node} (${m.pid})`).join(', ')}`,
        );
      return { profile: { ...out, nodes: writeProfiles(run, got.profiles, plan.us) }, stores: statements };
    },
  };
}

// The stores that count what they spend their time on, and where they answer.
function statementStores(state) {
  if (!state || state.runtime !== 'local') return [];
  return Object.entries(state.stores || {})
    .filter(([, s]) => s.statements)
    .map(([name]) => {
      const node = state.graph.nodes.find((n) => n.name === name);
      return node && STATEMENTS[node.kind]
        ? { name, kind: node.kind, addr: { host: state.host, port: node.port } }
        : null;
    })
    .filter(Boolean);
}

// profiles/<node>-<pid>.cpuprofile for each process, profiles/<node>.cpuprofile with a node's
// processes merged; -> { [node]: { processes, file, samples, busyShare, top, topTotal, packages } }.
function writeProfiles(run, profiles, us) {
  if (!profiles.length) return {};
  const dir = run.file('profiles');
  fs.mkdirSync(dir, { recursive: true });
  const byNode = new Map();
  for (const p of profiles) {
    const name = safe(p.node);
    fs.writeFileSync(path.join(dir, `${name}-${p.pid}.cpuprofile`), JSON.stringify(p.profile));
    if (!byNode.has(p.node)) byNode.set(p.node, []);
    byNode.get(p.node).push(p);
  }
  const nodes = {};
  for (const [node, list] of [...byNode].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
    // (One process: its own profile, with its timeline; several: merged by call path.)
    const tree = list.length === 1 ? treeOf(list[0].profile) : mergeTrees(list.map((p) => p.profile));
    const file = path.join('profiles', `${safe(node)}.cpuprofile`);
    const merged = list.length === 1 ? list[0].profile : toCpuprofile(tree, { intervalUs: us });
    fs.writeFileSync(run.file(file), JSON.stringify(merged));
    nodes[node] = {
      processes: list.map((p) => ({ pid: p.pid, role: p.role, worker: p.w ?? null })),
      file,
      ...topFunctions(tree),
    };
  }
  return nodes;
}

const safe = (name) => String(name).replace(/[^A-Za-z0-9_.-]/g, '_');

module.exports = { startProfiling };
