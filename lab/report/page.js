'use strict';

const { html, trusted } = require('./html');
const { chartAssets } = require('./chart-assets');
const { flameAssets } = require('./flame-assets');

const STYLE = `body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}.note,footer{color:#666;font-size:12px}.chart{display:block;margin:12px 0}
.facts li{margin:2px 0}.warn{background:#fff4e5;border-left:4px solid #f0a030;padding:6px 10px}`;

// Every page says the lab wrote it: a file that does not is not the lab's to overwrite.
const GENERATOR = 'node-deploy-lab';
const isOurPage = (text) => text.slice(0, 2048).includes(`<meta name="generator" content="${GENERATOR}" />`);

// The frame of every HTML page the lab writes: inline CSS and scripts only, nothing fetched.
// `body` is markup built with lab/report/html.js; a plain string would be escaped as text. A
// page with charts (./chart.js) carries the chart library once (o.charts: a page whose
// charts come later, the live dashboard's).
function page(title, body, machine, o = {}) {
  const charts = o.charts || String(body?.text ?? '').includes('data-chart=');
  // (A page with flame graphs, a profiled run's, carries their library once too.)
  const flames = String(body?.text ?? '').includes('class="flame"');
  const m = machine
    ? html`<footer>
        Measured on ${machine.hostname}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node
        ${machine.node}${
          machine.serviceNode?.length
            ? html` (the lab and its generator; the service on Node ${machine.serviceNode.join(', ')})`
            : ''
        }${machine.nginx ? html`, nginx ${machine.nginx}` : ''}${machine.artillery ? html`, Artillery ${machine.artillery}` : ''}.
      </footer>`
    : '';
  return `${html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="generator" content="${GENERATOR}" />
        <title>${title}</title>
        <style>
          ${trusted(STYLE)}
        </style>
        ${charts ? chartAssets() : ''} ${flames ? flameAssets() : ''}
      </head>
      <body>
        ${body} ${m}
      </body>
    </html> `}`;
}

module.exports = page;
module.exports.isOurPage = isOurPage;
