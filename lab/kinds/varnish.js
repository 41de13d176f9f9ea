'use strict';

const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { defineKind, template } = require('./common/proxy');
const { fillTemplate } = require('./common/template');

// A caching edge of Varnish (varnish/edge.vcl.template), the classic HTTP cache, in place of
// the nginx edges: the same X-Edge and X-Cache-Status headers. Varnish counts its own cache
// verdicts (varnishstat), so nothing is logged per request.
function config(ctx) {
  const b = ctx.deployment.balancer;
  const backends = ctx.upstreams.map((u, i) => {
    const [host, port] = [u.slice(0, u.lastIndexOf(':')), u.slice(u.lastIndexOf(':') + 1)];
    const name = ctx.node.upstreams[i].replace(/\W/g, '_');
    // A backend that fails its probes is left out, as nginx's passive health does. Your
    // service (--app) has no /healthz, and any answer of its says it is up, which a probe
    // (one expected status) cannot say: its backends are not probed.
    const probe = ctx.deployment.app
      ? ''
      : `
    .probe = {
        .request = "GET /healthz HTTP/1.1" "Host: ${ctx.node.name}" "Connection: close";
        .interval = 1s;
        .timeout = 1s;
        .window = ${b.maxFails};
        .threshold = 1;
    }`;
    return `backend ${name} {
    .host = "${host}";
    .port = "${port}";
    .connect_timeout = 2s;
    .first_byte_timeout = 120s;
    .between_bytes_timeout = 120s;${probe}
}`;
  });
  return fillTemplate(template('varnish', 'edge.vcl.template'), {
    node: ctx.node.name,
    label: ctx.deployment.label,
    backends: backends.join('\n'),
    addBackends: ctx.node.upstreams.map((n) => `    backends.add_backend(${n.replace(/\W/g, '_')});`).join('\n'),
  });
}

// Sized for an edge of seed 000 (capped at 15-25 MiB there): Varnish's defaults (an 80 MiB
// shared-memory log, two pools of 100 threads) made its child 88 MiB here, and the memory
// cap killed it; with a 2 MiB log and one small pool it starts at 8 MiB. The cache itself
// (malloc) grows as objects come, up to 32 MiB (the cdn row's objects are 10 MiB in all).
const SIZING = [
  '-s',
  'malloc,32m',
  '-l',
  '2m',
  '-p',
  'thread_pools=1',
  '-p',
  'thread_pool_min=5',
  '-p',
  'thread_pool_max=1000',
  '-p',
  'thread_pool_stack=64k',
];

// MAIN counters of varnishstat: client requests and cache hits. Every request is looked up
// (edge.vcl: nothing passes but WebSockets), so every other request is a MISS, as every
// request through an nginx edge logs a verdict.
function counters(paths) {
  try {
    const out = execFileSync('varnishstat', ['-n', paths.workDir, '-1', '-j'], { timeout: 5000 }).toString();
    const data = JSON.parse(out);
    const c = data.counters || data;
    const v = (k) => Number(c[`MAIN.${k}`]?.value ?? 0);
    return { requests: v('client_req'), HIT: v('cache_hit') };
  } catch {
    return null;
  }
}

module.exports = defineKind({
  name: 'varnish',
  flag: 'varnish',
  role: 'edge',
  layer: 7,
  what: 'Varnish',
  label: 'Varnish cache',
  runtimes: ['local', 'compose'],
  bin: { name: 'varnishd', package: 'varnish', path: '/usr/sbin/varnishd' },
  confFile: 'edge.vcl',
  config,
  // In the foreground under pm2 (-F); its working folder (-n) inside its prefix. No jail
  // (-j none): as root it would drop to Debian's varnish user, which may not enter the state
  // folder (a private temporary folder in the tests); it runs as the lab's user, as the
  // lab's other processes do.
  local: (ctx) => ({
    command: ctx.bin,
    args: [
      '-F',
      '-j',
      'none',
      '-n',
      ctx.paths.workDir,
      '-a',
      `${ctx.listen.host}:${ctx.listen.port}`,
      '-f',
      ctx.paths.confFile,
      ...SIZING,
      '-P',
      ctx.paths.pidFile,
    ],
  }),
  check: (ctx) => ({
    command: ctx.bin,
    args: ['-C', '-j', 'none', '-n', path.join(ctx.paths.prefix, 'check'), '-f', ctx.paths.confFile],
  }),
  container: {
    image: 'varnish:7.1',
    imageEnv: 'LAB_VARNISH_IMAGE',
    conf: '/etc/varnish/lab.vcl',
    command: (conf) => ['varnishd', '-F', '-f', conf, '-a', ':8080', ...SIZING],
  },
  cache: {
    mark: (paths) => counters(paths),
    since: (paths, mark) => {
      const now = counters(paths);
      if (!now) return { requests: 0, verdicts: {} };
      const m = mark || { requests: 0, HIT: 0 };
      const requests = Math.max(0, now.requests - m.requests);
      const hits = Math.min(requests, Math.max(0, now.HIT - m.HIT));
      return { requests, verdicts: { HIT: hits, MISS: requests - hits } };
    },
  },
});
