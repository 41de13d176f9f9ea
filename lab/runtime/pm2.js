'use strict';

// pm2 through its programmatic API, with its own home inside the state folder so it never
// touches a user's own pm2 (their ~/.pm2, their daemon, their process list). pm2 creates
// $PM2_HOME (or ~/.pm2) the moment it is required, so it is required here, lazily, only
// after lab/ownership/adopt.js has pointed PM2_HOME and HOME into the state folder.
function connectPm2(home) {
  if (process.env.PM2_HOME !== home) throw new Error(`PM2_HOME must be ${home} before pm2 is required`);
  const PM2 = require('pm2');
  const pm2 = new PM2.custom({ pm2_home: home, daemon_mode: true });
  const call = (method, ...args) =>
    new Promise((resolve, reject) => pm2[method](...args, (err, out) => (err ? reject(err) : resolve(out))));
  return call('connect').then(() => ({
    start: (opts) => call('start', opts),
    list: () => call('list'),
    // The client keeps handles open after this; commands exit explicitly when done.
    disconnect: () => pm2.disconnect(),
  }));
}

module.exports = connectPm2;
