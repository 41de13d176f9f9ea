#!/usr/bin/env node
'use strict';

const { parseArgs } = require('node:util');
const { loadConfig, fields } = require('./config');
const startBlackBoxes = require('./server');

const USAGE = `usage: node bbox [--reveal] [--config FILE] [--key KEY] [--port BASE] [--host HOST]
                 [--sync bbox1|bbox2] [--workers W] [--bbox1-delay MS] [--bbox2-delay MS] [--backlog N]

Serves two black boxes answering "Hello, world!": bbox1 on BASE, bbox2 on BASE+1.
Their kind, delays and worker count come from the group key (group.key in the properties
file, BBOX_KEY, or --key); the other flags override one parameter each.
  --reveal   print the parameters as JSON and exit, without starting anything`;

function main(argv) {
  let values;
  try {
    const options = { reveal: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, config: { type: 'string' } };
    for (const f of Object.values(fields)) options[f.flag.slice(2)] = { type: 'string' };
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (err) {
    process.stderr.write(`bbox: ${err.message}\n${USAGE}\n`);
    return process.exit(2);
  }
  if (values.help) return process.stdout.write(`${USAGE}\n`);

  let config;
  try {
    const flags = Object.fromEntries(Object.entries(values).map(([k, v]) => [`--${k}`, v]));
    config = loadConfig({ flags });
  } catch (err) {
    process.stderr.write(`bbox: ${err.message}\n`);
    return process.exit(String(err.setting).startsWith('--') ? 2 : 1);
  }

  if (values.reveal) return process.stdout.write(`${JSON.stringify(config.services)}\n`);

  startBlackBoxes(config).then(
    (boxes) => {
      for (const [name, svc] of Object.entries(config.services)) {
        process.stderr.write(`bbox: ${name} on ${config.host}:${boxes.ports[name]}\n`);
        if (svc.port === 0) process.stdout.write(`${JSON.stringify({ name, port: boxes.ports[name] })}\n`);
      }
      // Bounded: with thousands of connections open, close() has been seen to wait forever.
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        setTimeout(() => process.exit(0), 2000).unref();
        boxes.close().then(() => process.exit(0));
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    },
    (err) => {
      process.stderr.write(`bbox: cannot listen: ${err.message}\n`);
      process.exit(1);
    },
  );
}

main(process.argv.slice(2));
