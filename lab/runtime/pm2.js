'use strict';

const PM2 = require('pm2');

// pm2 through its programmatic API, with its own home inside the run directory so it never
// touches a user's own pm2 (their ~/.pm2, their daemon, their process list).
function connectPm2(home) {
  const pm2 = new PM2.custom({ pm2_home: home, daemon_mode: true });
  const call = (method, ...args) =>
    new Promise((resolve, reject) => pm2[method](...args, (err, out) => (err ? reject(err) : resolve(out))));
  return call('connect').then(() => ({
    start: (opts) => call('start', opts),
    list: () => call('list'),
    // Stops every app (SIGINT, then SIGKILL after each app's kill_timeout) and the daemon.
    killDaemon: () => call('killDaemon'),
    // The client keeps handles open after this; commands exit explicitly when done.
    disconnect: () => pm2.disconnect(),
  }));
}

module.exports = connectPm2;
