'use strict';

const createBalancer = require('../../balancer/server');
const { loadConfig } = require('../../balancer/config');
const { listen, get } = require('../helper');

// Two replicas that say who they are, and a balancer in front of them on a free port.
async function setup(handlers, options = {}) {
  const replicas = await Promise.all(handlers.map((h) => listen(h)));
  const upstreams = replicas.map((r) => r.url.replace('http://', ''));
  const { server, stop } = createBalancer({ upstreams, keepalive: 8, timeoutMs: 2000, ...options });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const close = async () => {
    await new Promise((r) => stop(r));
    await Promise.all(replicas.map((r) => r.close()));
  };
  return { url, close, replicas };
}
const named = (name) => (req, res) => res.writeHead(200, { 'x-instance': name }).end(name);

describe("the lab's own balancer", () => {
  test('round-robin: requests are shared exactly evenly, bodies and statuses pass through', async () => {
    const b = await setup([named('a'), named('b'), (req, res) => res.writeHead(503).end('busy')]);
    try {
      const seen = {};
      for (let i = 0; i < 30; i++) {
        const r = await get(`${b.url}/x`);
        const key = r.headers['x-instance'] || String(r.status);
        seen[key] = (seen[key] || 0) + 1;
      }
      expect(seen).toEqual({ a: 10, b: 10, 503: 10 });
    } finally {
      await b.close();
    }
  });

  test('a refused replica is skipped for the next; none left: 502; a silent one: 504', async () => {
    const b = await setup([named('a')]);
    const closed = await listen(named('gone'));
    const deadUpstream = closed.url.replace('http://', '');
    await closed.close();
    const { server, stop } = createBalancer({
      upstreams: [deadUpstream, b.url.replace('http://', '')],
      keepalive: 2,
      timeoutMs: 300,
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${server.address().port}`;
    try {
      for (let i = 0; i < 4; i++) expect((await get(url)).headers['x-instance']).toBe('a');
    } finally {
      await new Promise((r) => stop(r));
      await b.close();
    }
    const dead = createBalancer({ upstreams: [deadUpstream], keepalive: 0, timeoutMs: 300 });
    await new Promise((r) => dead.server.listen(0, '127.0.0.1', r));
    const r502 = await get(`http://127.0.0.1:${dead.server.address().port}/`);
    expect(r502.status).toBe(502);
    expect(JSON.parse(r502.body).error).toBe('ECONNREFUSED');
    await new Promise((r) => dead.stop(r));
    const silent = await setup([() => {}], { timeoutMs: 200 });
    try {
      expect((await get(silent.url)).status).toBe(504);
    } finally {
      silent.replicas[0].server.closeAllConnections();
      await silent.close();
    }
  });

  test('passive health: a replica gone, its requests go to the others and none fails', async () => {
    const b = await setup([named('a'), named('b')], { failTimeoutMs: 400 });
    try {
      // b goes away (its keep-alive sockets die with it): requests go to a only, none fails.
      await b.replicas[1].close();
      const seen = {};
      for (let i = 0; i < 12; i++) {
        const r = await get(`${b.url}/x`);
        seen[r.headers['x-instance'] || r.status] = (seen[r.headers['x-instance'] || r.status] || 0) + 1;
      }
      expect(seen).toEqual({ a: 12 });
    } finally {
      await b.close();
    }
  });

  test('its configuration is checked once: a bad UPSTREAMS is named', () => {
    expect(loadConfig({ UPSTREAMS: '127.0.0.1:1,h:2' }).upstreams).toEqual(['127.0.0.1:1', 'h:2']);
    expect(() => loadConfig({ UPSTREAMS: 'nope' })).toThrow(/UPSTREAMS/);
    expect(() => loadConfig({})).toThrow(/UPSTREAMS/);
  });

  test('RESOLVE_MS: a name stands for all its addresses, followed as they come and go', async () => {
    const http = require('node:http');
    // Two replicas on one port, at 127.0.0.1 and 127.0.0.2 (all of 127/8 is loopback).
    const one = http.createServer(named('one'));
    await new Promise((r) => one.listen(0, '127.0.0.1', r));
    const port = one.address().port;
    const two = http.createServer(named('two'));
    await new Promise((r) => two.listen(port, '127.0.0.2', r));
    let addresses = ['127.0.0.1'];
    const b = createBalancer({
      upstreams: [`tasks.service:${port}`],
      keepalive: 4,
      timeoutMs: 2000,
      resolveMs: 50,
      lookup: async () => addresses,
    });
    await b.ready;
    await new Promise((r) => b.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${b.server.address().port}`;
    const who = async (n) => {
      const seen = new Set();
      for (let i = 0; i < n; i++) seen.add((await get(url)).headers['x-instance']);
      return [...seen].sort();
    };
    try {
      expect(await who(4)).toEqual(['one']);
      addresses = ['127.0.0.1', '127.0.0.2'];
      // Generous for a busy machine: the lookup runs every 50 ms.
      await new Promise((r) => setTimeout(r, 400));
      expect(b.targets()).toEqual([`127.0.0.1:${port}`, `127.0.0.2:${port}`]);
      expect(await who(4)).toEqual(['one', 'two']);
      addresses = ['127.0.0.2'];
      await new Promise((r) => setTimeout(r, 400));
      expect(await who(4)).toEqual(['two']);
    } finally {
      await new Promise((r) => b.stop(r));
      await new Promise((r) => one.close(r));
      await new Promise((r) => two.close(r));
    }
  });

  test('a new list of replicas (SIGHUP): new ones get requests, a dropped one finishes its request in flight and gets no other', async () => {
    let release;
    const a = await listen((req, res) => {
      const answer = () => res.writeHead(200, { 'x-instance': 'a' }).end('a');
      if (req.url === '/slow') release = answer;
      else answer();
    });
    const c = await listen(named('c'));
    const { server, stop, setUpstreams } = createBalancer({
      upstreams: [a.url.replace('http://', '')],
      keepalive: 8,
      timeoutMs: 5000,
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${server.address().port}`;
    try {
      expect((await get(`${url}/x`)).headers['x-instance']).toBe('a');
      const inFlight = get(`${url}/slow`);
      while (!release) await new Promise((r) => setTimeout(r, 20));
      setUpstreams([c.url.replace('http://', '')]);
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await get(`${url}/x`)).headers['x-instance']);
      expect(after).toEqual(['c', 'c', 'c', 'c']);
      release();
      const r = await inFlight;
      expect([r.status, r.headers['x-instance']]).toEqual([200, 'a']);
    } finally {
      await new Promise((r) => stop(r));
      await c.close();
      await a.close();
    }
  });

  test('UPSTREAMS_FILE lines are checked as UPSTREAMS is', () => {
    const { readUpstreams } = require('../../balancer/config');
    expect(readUpstreams('127.0.0.1:8090\n\n127.0.0.1:8091\n')).toEqual(['127.0.0.1:8090', '127.0.0.1:8091']);
    expect(() => readUpstreams('127.0.0.1:8090\nnot an address\n')).toThrow();
  });
});
