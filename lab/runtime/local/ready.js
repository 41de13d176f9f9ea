'use strict';

const path = require('node:path');
const { labError } = require('../../../common/errors');
const { waitFor, get } = require('../../http');
const { appAccepts } = require('../readiness');
const { sleep } = require('../../ownership/procs');
const { text: durationText } = require('../../terminal/duration');
const { logTail } = require('./log-tail');

// When a local node is ready: it answers as its kind says, or your service's replica answers
// HTTP; one that exits or never answers is said with what it wrote last (`rt`: the
// LocalRuntime, for its interruptible steps and its CA).

// Node's refusal of a file it may not read (Node 20's --experimental-permission, a policy) when
// the file is the runtime probe the lab preloads: the way on is --no-probe. (Node 22 and 24
// let a preloaded file in under --permission; a refusal of your service's own files is its own,
// and gets no word about the probe.)
const REFUSED = /Access to this API has been restricted|ERR_ACCESS_DENIED|ERR_MANIFEST/;
const PROBE_FILE = /probe[\\/]preload\.js|\.lab-probe\.cjs|_preloadModules/;
const refusedPreload = (tail) => REFUSED.test(tail) && PROBE_FILE.test(tail);

const PRELOAD_HINT =
  "  (the lab preloads its runtime probe into your service's Node processes, and this one refused to read it: a service run with --permission (Node 20: --experimental-permission) or a policy deploys with --no-probe)";

// How long a replica may take to answer its first request: the lab's own service's, 30 s; your
// service's, --app-start-timeout, else LAB_APP_START_MS (milliseconds), else the same 30 s.
const SERVICE_START_MS = 30000;
const appStartMs = (app) =>
  app.startTimeoutS ? app.startTimeoutS * 1000 : Number(process.env.LAB_APP_START_MS) || SERVICE_START_MS;

// (app: your service, whose answers count when below 500 with --health, else any.)
async function waitHealthy(rt, what, url, until, timeoutMs = 20000, app = null) {
  try {
    await rt.step(() => waitFor(url, { until, timeoutMs, accept: app ? appAccepts(app) : undefined, ca: rt.ca }));
  } catch (err) {
    if (err.code === 'LAB_ERR_INTERRUPTED') throw err;
    const shown = typeof url === 'function' ? url('N') : url;
    throw labError(
      'LAB_ERR_UNHEALTHY',
      what,
      `${shown}: not ready within ${durationText(timeoutMs / 1000)} (last: ${err.message}; logs in ${path.join(rt.stateDir, 'logs')})`,
    );
  }
}

// One replica of your service: ready when its port answers HTTP (or --health answers below
// 500). It exiting meanwhile, or never answering, is said with what it wrote last: a user
// sees why their service did not start, not a time-out of the lab's.
async function waitApp(rt, app, node, url, pm2, probed = false) {
  const timeoutMs = appStartMs(app);
  const target = `${url}${app.health ?? '/'}`;
  const accept = appAccepts(app);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last;
    try {
      const r = await rt.step(() => get(target, { timeoutMs: 2000 }));
      if (accept(r.status)) return;
      last = `HTTP ${r.status}`;
    } catch (err) {
      if (err.code === 'LAB_ERR_INTERRUPTED') throw err;
      last = err.code || err.message;
    }
    const p = (await rt.step(() => pm2.list())).find((x) => x.name === node.name);
    const env = p?.pm2_env || {};
    if (!p || env.restart_time > 0 || ['errored', 'stopped'].includes(env.status)) {
      const tail = logTail(rt.stateDir, node.name);
      throw labError(
        'LAB_ERR_APP',
        `${app.name} (${node.name})`,
        `it exited at start (${env.exit_code !== undefined ? `exit code ${env.exit_code}` : env.status || 'gone'}); its last lines:\n${tail}${probed && refusedPreload(tail) ? `\n${PRELOAD_HINT}` : ''}`,
      );
    }
    if (Date.now() > deadline) {
      throw labError(
        'LAB_ERR_APP',
        `${app.name} (${node.name})`,
        `${target} did not answer${app.health ? ' below 500' : ' HTTP'} within ${durationText(timeoutMs / 1000)} (${last}), the limit of ${app.startTimeoutS ? '--app-start-timeout' : process.env.LAB_APP_START_MS ? 'LAB_APP_START_MS' : '--app-start-timeout (default 30s)'}. If it is still starting, give it longer (--app-start-timeout 2m); if not, does it listen on process.env.PORT (${node.port} here)? Its last lines:\n${logTail(rt.stateDir, node.name)}`,
      );
    }
    await sleep(200);
  }
}

module.exports = { waitHealthy, waitApp, refusedPreload, SERVICE_START_MS };
