'use strict';

// One autocannon run in a process of its own, for bench/keepalive.js: its CPU counted from
// the run's start to its end (as the lab's engines count theirs: without loading Node and
// the module), its answers a second. autocannon is not a dependency of the lab: the bench
// installs it into a scratch folder and passes that folder here.
//   node bench/autocannon-once.js MODULE_DIR URL CONNECTIONS SECONDS PIPELINING
const [dir, url, connections, seconds, pipelining] = process.argv.slice(2);
const autocannon = require(require.resolve('autocannon', { paths: [dir] }));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
autocannon(
  { url, connections: Number(connections), duration: Number(seconds), pipelining: Number(pipelining) },
  (err, r) => {
    if (err) throw err;
    const cpu = process.cpuUsage(cpu0);
    const answered = r.requests.total;
    process.stdout.write(
      `${JSON.stringify({
        answered,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        seconds: (performance.now() - t0) / 1000,
        cpuS: (cpu.user + cpu.system) / 1e6,
        p99Ms: r.latency.p99,
      })}\n`,
    );
  },
);
