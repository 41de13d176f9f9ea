'use strict';

const { labError } = require('../../common/errors');

// pm2 through its programmatic API, with its own home inside the state folder so it never
// touches a user's own pm2 (their ~/.pm2, their daemon, their process list). pm2 creates
// $PM2_HOME (or ~/.pm2) the moment it is required, so it is required here, lazily, only
// after lab/ownership/adopt.js has pointed PM2_HOME and HOME into the state folder.
//
// Every call has a time-out (timeoutMs): a daemon that does not answer (a second one on the
// same home once hung a deploy for minutes) becomes an error naming the call, not silence.
//
// pm2 stops a process as a container engine does, with SIGTERM (its own default is SIGINT,
// which a service that drains on SIGTERM, as Kubernetes and Docker ask, does not expect): its
// daemon reads PM2_KILL_SIGNAL once, at its start, from the environment of the process that
// starts it, which is this one.
function connectPm2(home, { timeoutMs = 30000 } = {}) {
  if (process.env.PM2_HOME !== home) throw new Error(`PM2_HOME must be ${home} before pm2 is required`);
  process.env.PM2_KILL_SIGNAL = 'SIGTERM';
  const PM2 = require('pm2');
  const pm2 = new PM2.custom({ pm2_home: home, daemon_mode: true });
  const callWithin = (ms, method, ...args) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            labError(
              'LAB_ERR_PROCESS',
              `pm2 ${method}`,
              `no answer from pm2's daemon in ${home} within ${ms / 1000} s`,
            ),
          ),
        ms,
      );
      pm2[method](...args, (err, out) => {
        clearTimeout(timer);
        return err ? reject(err) : resolve(out);
      });
    });
  const call = (method, ...args) => callWithin(timeoutMs, method, ...args);
  return call('connect').then(() => ({
    start: (opts) => call('start', opts),
    list: () => call('list'),
    // Stops one app (SIGTERM, pm2's SIGKILL after its kill_timeout) and forgets it; a stop
    // waits for the process to end, up to `ms`.
    stop: (name, ms = timeoutMs) => callWithin(ms, 'stop', name),
    delete: (name, ms = timeoutMs) => callWithin(ms, 'delete', name),
    // The client keeps handles open after this; commands exit explicitly when done.
    disconnect: () => pm2.disconnect(),
  }));
}

module.exports = connectPm2;
