'use strict';

// Preloaded into Etsy's StatsD daemon (./statsd.js): it logs with util.log, which Node removed
// in 23; on the lab's Node 24 the daemon died at its first line. The same line as Node's own
// util.log wrote it: "29 Nov 05:18:30 - message".
const util = require('node:util');

if (typeof util.log !== 'function') {
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n) => String(n).padStart(2, '0');
  util.log = (...args) => {
    const d = new Date();
    const time = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    console.log(`${d.getDate()} ${MONTHS[d.getMonth()]} ${time} - ${util.format(...args)}`);
  };
}
