'use strict';

const { startDashboard } = require('./server');
const { own } = require('../ownership/cleanups');

// Feeds the dashboard while a run goes: renders what the run has recorded so far (render()
// -> { html, status }) and sends it to every open tab. Rendering is the dashboard's whole
// cost, so it is measured (the CPU of each synchronous render) and kept under `budget` of
// one core: a refresh every second while a render costs under 20 ms, less often when the
// run's records grow that large (the page says how often). With no tab open nothing is
// rendered at all.
function liveFeed(dashboard, { render, budget = 0.02, everyMs = 1000 }) {
  let timer = null;
  let stopped = false;
  let renders = 0;
  let cpuMs = 0;
  let intervalMs = everyMs;
  let intervalMsMax = everyMs;
  const startedAt = Date.now();

  function tick() {
    if (stopped) return;
    if (dashboard.clients > 0) {
      const before = process.cpuUsage();
      let event;
      try {
        event = render({ intervalMs });
      } catch (err) {
        event = { html: '', status: `the dashboard could not draw this second: ${err.message}` };
      }
      const used = process.cpuUsage(before);
      const ms = (used.user + used.system) / 1000;
      cpuMs += ms;
      renders += 1;
      dashboard.send(event);
      intervalMs = Math.max(everyMs, Math.ceil(ms / budget / 1000) * 1000);
      intervalMsMax = Math.max(intervalMsMax, intervalMs);
    }
    timer = setTimeout(tick, intervalMs);
    timer.unref();
  }

  return {
    start() {
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    // The last event (the run's end, with the report) goes out even with no tab open, for
    // a tab that connects in the moments before the lab exits.
    stop(final) {
      stopped = true;
      clearTimeout(timer);
      if (final) dashboard.send({ ...final, ended: true });
    },
    stats() {
      const s = (Date.now() - startedAt) / 1000;
      return {
        renders,
        cpuMs: Math.round(cpuMs),
        cpuPctOfCore: s > 0 ? Math.round((cpuMs / 10 / s) * 100) / 100 : null,
        refreshEveryMsMax: intervalMsMax,
        tabsMax: dashboard.clientsMax,
      };
    },
  };
}

// --dashboard on a long command (study, characterize, capacity): the page listens before
// anything starts (a port in use stops the command there), is fed from render(), and is
// owned, so Ctrl-C or a failure puts `interrupted` on it. Returns null without --dashboard,
// else { url, end(html, status) }: the last event, a moment for open tabs to get it, closed.
async function serveLive({ port, host, title, log, render, interrupted }) {
  if (port === undefined) return null;
  const dashboard = await startDashboard({ host, port, title });
  const releaseServer = own(() => dashboard.close());
  log(`live dashboard: ${dashboard.url}`);
  if (dashboard.exposed) log(dashboard.exposed);
  const feed = liveFeed(dashboard, { render });
  feed.start();
  const releaseFeed = own(() => feed.stop({ html: '', status: interrupted }));
  return {
    url: dashboard.url,
    async end(html, status) {
      releaseFeed();
      releaseServer();
      feed.stop({ html, status });
      await new Promise((r) => setTimeout(r, 300));
      await dashboard.close();
    },
  };
}

module.exports = { liveFeed, serveLive };
