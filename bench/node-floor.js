#!/usr/bin/env node
'use strict';

// What Node itself costs to send GET requests at a fixed rate, with nothing measured: the
// floor under any Node engine at that rate, for bench/engines.js to set the lab's open loop
// beside. Each arrival on a timer of its own armed ahead (as lab/generators/fast-worker.js
// arms them), a new connection per request (`connection: close`, node:net with its reads
// into one buffer, as the lab's engine reads) or, with --keepalive, a kept-alive connection
// taken from a pool (the last freed first) or opened when none is free. No histogram, no
// per-second record, no parser: an answer is counted when its connection ends (new) or when
// a read arrives on it (kept alive; /ping's answer is one read). CPU from the first arrival,
// as the lab counts its own. Prints one line of JSON: { answered, failed, seconds, cpuS }.
//   node bench/node-floor.js URL RATE SECONDS [--keepalive]
const net = require('node:net');

const [href, rateText, secondsText, ...rest] = process.argv.slice(2);
const rate = Number(rateText);
const seconds = Number(secondsText);
const keepalive = rest.includes('--keepalive');
const USAGE = 'usage: node bench/node-floor.js URL RATE(1-50000) SECONDS(1-3600) [--keepalive]';
const wrong = [
  !/^https?:\/\/./.test(href ?? '') && `URL ${JSON.stringify(href ?? '')} is not an http:// address`,
  !(Number.isInteger(rate) && rate >= 1 && rate <= 50000) && `RATE ${JSON.stringify(rateText ?? '')} is not 1-50000`,
  !(Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600) &&
    `SECONDS ${JSON.stringify(secondsText ?? '')} is not 1-3600`,
  rest.some((a) => a !== '--keepalive') && `unknown ${JSON.stringify(rest.find((a) => a !== '--keepalive'))}`,
].find(Boolean);
if (wrong) {
  process.stderr.write(`node-floor: ${wrong}\n${USAGE}\n`);
  process.exit(2);
}
const url = new URL(href);
const port = Number(url.port) || 80;
const request = Buffer.from(
  `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n${keepalive ? '' : 'connection: close\r\n'}\r\n`,
);
const SHARED = Buffer.allocUnsafe(64 * 1024);
const total = rate * seconds;
let answered = 0;
let ended = 0;
const free = [];

function connection(onRead) {
  const socket = net.connect({ host: url.hostname, port, onread: { buffer: SHARED, callback: onRead } });
  socket.setNoDelay(true);
  socket.on('error', () => {});
  return socket;
}

function newConnection() {
  let got = false;
  const socket = connection(() => (got = true));
  socket.on('close', () => {
    ended++;
    if (got) answered++;
  });
  socket.write(request);
}

function keptAlive() {
  let c = free.pop();
  if (!c) {
    c = { socket: null };
    c.socket = connection(() => {
      answered++;
      free.push(c);
    });
  }
  c.socket.write(request);
}

const send = keepalive ? keptAlive : newConnection;
const HORIZON_MS = 250;
const t0 = performance.now() + 300;
let i = 0;
let cpuAtStart = null;
setTimeout(() => (cpuAtStart = process.cpuUsage()), Math.max(0, t0 - performance.now()));
const dueOf = (k) => t0 + (k * 1000) / rate;
const arm = () => {
  const horizon = performance.now() + HORIZON_MS;
  for (; i < total && dueOf(i) <= horizon; i++) setTimeout(send, Math.max(0, dueOf(i) - performance.now()));
  if (i < total) setTimeout(arm, HORIZON_MS / 2);
};
setTimeout(arm, Math.max(0, t0 - HORIZON_MS / 2 - performance.now()));

// Done when every arrival has its answer or failure, or 10 s after the last was due.
const deadline = t0 + seconds * 1000 + 10000;
const check = setInterval(() => {
  if ((keepalive ? answered : ended) < total && performance.now() < deadline) return;
  clearInterval(check);
  const cpu = process.cpuUsage(cpuAtStart);
  process.stdout.write(
    `${JSON.stringify({ answered, failed: total - answered, seconds, cpuS: (cpu.user + cpu.system) / 1e6 })}\n`,
  );
  process.exit(0);
}, 20);
