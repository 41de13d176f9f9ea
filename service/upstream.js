'use strict';

const http = require('node:http');
const https = require('node:https');

// A keep-alive HTTP client for the black boxes. Failures come back as errors with a
// `kind`: 'refused' (nothing listens: 502), 'timeout' (no answer in time: 504) or
// 'failed' (anything else on the wire: 502).
function createUpstream({ timeoutMs }) {
  // No socket cap: a cap would queue requests inside the service and hide the black box's
  // own behaviour (the asynchronous one holds thousands at once).
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: Infinity }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: Infinity }),
  };

  function get(url) {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.get(target, { agent: agents[target.protocol] }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', (err) => reject(classify(err)));
      });
      req.setTimeout(timeoutMs, () => {
        const err = new Error(`no answer from ${url} within ${timeoutMs} ms`);
        err.code = 'ETIMEDOUT';
        req.destroy(err);
      });
      req.on('error', (err) => reject(classify(err)));
    });
  }

  function close() {
    for (const agent of Object.values(agents)) agent.destroy();
  }

  return { get, close };
}

function classify(err) {
  if (err.code === 'ECONNREFUSED') err.kind = 'refused';
  else if (err.code === 'ETIMEDOUT') err.kind = 'timeout';
  else err.kind = 'failed';
  return err;
}

module.exports = createUpstream;
