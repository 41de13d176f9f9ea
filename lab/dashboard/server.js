'use strict';

// The live dashboard (--dashboard [PORT]): one page on 127.0.0.1 (or --host) that shows a
// run as it goes, fed by server-sent events. Read-only: the page, its event stream, nothing
// else, and no control actions. The body it shows is rendered here by the report's own
// renderer (lab/report/run-report.js: the same charts and tables as report.html), once per
// refresh for every open tab alike, so ten tabs cost what one does and no tab costs nothing.
const http = require('node:http');
const { labError } = require('../../common/errors');
const { html, trusted } = require('../report/html');
const page = require('../report/page');

// The page's own script: the live feed. Each event carries the body to show and a status;
// the body replaces the last one with its charts kept (lab/report/assets/charts.js: a chart
// of the same title gets the new seconds, and keeps a reader's zoom and hidden series).
const SCRIPT = `(() => {
  const live = document.getElementById('live');
  const status = document.getElementById('status');
  const es = new EventSource('events');
  es.onmessage = (e) => {
    const m = JSON.parse(e.data);
    window.labCharts.update(live, m.html);
    status.textContent = m.status;
    status.className = m.ended ? 'warn' : 'note';
    if (m.ended) es.close();
  };
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) status.textContent = 'the lab stopped serving this page';
    else status.textContent = 'connection lost: retrying';
  };
})();`;

function shell(title) {
  return page(
    `live: ${title}`,
    html`<p id="status" class="note">connecting to the run...</p>
      <div id="live"><p>waiting for the run's first second</p></div>
      <script>
        ${trusted(SCRIPT)}
      </script>`,
    null,
    { charts: true },
  );
}

// Listens before the run starts anything: a port in use is an error at once.
async function startDashboard({ host = '127.0.0.1', port = 0, title = 'run' } = {}) {
  const clients = new Set();
  let last = null; // the latest event, sent to a tab as soon as it opens
  let clientsMax = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(shell(title));
      return;
    }
    if (url.pathname === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 2000\n\n');
      if (last) res.write(last);
      clients.add(res);
      clientsMax = Math.max(clientsMax, clients.size);
      req.on('close', () => clients.delete(res));
      return;
    }
    // A browser asks for the icon on its own: none, and no 404 in its console.
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204, { 'cache-control': 'max-age=86400' }).end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  // A client that never finishes its request holds nothing for long (Node's default waits
  // 300 s for a whole request).
  server.headersTimeout = 10000;
  server.requestTimeout = 10000;
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', (err) =>
      reject(
        err.code === 'EADDRINUSE'
          ? labError(
              'LAB_ERR_PORT_TAKEN',
              `${host}:${port}`,
              'the live dashboard',
              '--dashboard PORT (0: any free one)',
            )
          : labError('LAB_ERR_USAGE', `--dashboard on ${host}:${port}: ${err.message}`),
      ),
    );
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const shown = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shown}:${address.port}/`,
    // Said when it starts: a page on every interface is readable by whoever reaches this machine.
    exposed: ['0.0.0.0', '::', ''].includes(host)
      ? `the live dashboard listens on every interface (${host || 'all'}): anyone who reaches this machine on port ${address.port} can read it; --host 127.0.0.1 keeps it to this machine`
      : null,
    get clients() {
      return clients.size;
    },
    get clientsMax() {
      return clientsMax;
    },
    // One event for every open tab: { html, status, ended }.
    send(event) {
      last = `data: ${JSON.stringify(event)}\n\n`;
      for (const res of clients) res.write(last);
    },
    // Ends every open tab's stream, then every connection after `graceMs`: one client that
    // sent half a request once held the run (and its lock, and its deployment) for good.
    close({ graceMs = 500 } = {}) {
      for (const res of clients) res.end();
      clients.clear();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

module.exports = { startDashboard };
