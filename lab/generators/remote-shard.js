'use strict';

// One shard of a generator spread over several nodes (--load-nodes), run as a task on a
// swarm node: it connects to the coordinator (lab/generators/distributed.js) on
// LAB_COORDINATOR (host:port) with LAB_COORDINATOR_TOKEN, answers its clock probes, runs its
// part of the schedule (lab/generators/fast-process.js: its threads of all the shards, from
// the start the coordinator set, in this node's clock), and streams its records back,
// with the CPU it used every second. Newline-delimited JSON both ways.
const net = require('node:net');
const { runGenerator } = require('./fast-process');
const { lines } = require('../../hub/lines');

// LAB_CLOCK_SKEW_MS (tests only): this node's clock reads that much ahead of the machine's,
// consistently (pongs, the start it is given, the records it sends), as a node with a
// wrong clock would; the coordinator's measured offset must find it.
const skew = Number(process.env.LAB_CLOCK_SKEW_MS) || 0;
const clock = () => performance.timeOrigin + performance.now() + skew;
const [host, port] = (process.env.LAB_COORDINATOR || '').split(':');
if (!host || !port) {
  process.stderr.write('remote-shard: LAB_COORDINATOR (host:port) is not set\n');
  process.exit(2);
}

const socket = net.connect({ host, port: Number(port) });
socket.setNoDelay(true);
const say = (obj) => !socket.destroyed && socket.write(`${JSON.stringify(obj)}\n`);
let run = null;
let cpuTimer = null;

socket.on('connect', () =>
  say({
    op: 'hello',
    token: process.env.LAB_COORDINATOR_TOKEN || '',
    node: process.env.LAB_NODE || require('node:os').hostname(),
    task: process.env.LAB_TASK || '',
    cores: require('node:os').availableParallelism(),
  }),
);

lines(
  socket,
  (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.op === 'ping') say({ op: 'pong', id: m.id, at: clock() });
    else if (m.op === 'start' && !run) start(m);
    else if (m.op === 'stop' && run) run.stop();
  },
  { maxBytes: 1 << 20 },
);

function start(m) {
  // The CPU this process used, every second: the node's generator row.
  let last = process.cpuUsage();
  let lastAt = clock();
  cpuTimer = setInterval(() => {
    const now = process.cpuUsage();
    const t = clock();
    say({
      op: 'cpu',
      cpuPct: ((now.user - last.user + now.system - last.system) / 1e3 / (t - lastAt)) * 100,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    });
    last = now;
    lastAt = t;
  }, 1000);
  const plan = { ...m.plan, t0: m.plan.t0 - skew };
  const shifted = (r) => (typeof r.at === 'number' ? { ...r, at: r.at + skew } : r);
  run = runGenerator(plan, (record) => say({ op: 'record', record: shifted(record) }));
  run.done.then(() => {
    clearInterval(cpuTimer);
    say({ op: 'end' });
    socket.end();
    setTimeout(() => process.exit(0), 500).unref();
  });
}

socket.on('error', (err) => {
  process.stderr.write(`remote-shard: ${err.message}\n`);
});
// The coordinator went away: stop sending, exit.
socket.on('close', () => {
  if (run) run.stop().then(() => process.exit(0));
  else process.exit(1);
  setTimeout(() => process.exit(1), 5000).unref();
});
process.on('SIGTERM', () => (run ? run.stop().then(() => process.exit(0)) : process.exit(0)));
