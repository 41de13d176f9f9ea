'use strict';

const fs = require('node:fs');
const path = require('node:path');
const describeMachine = require('../common/machine');
const { defineCommand, flag } = require('../lab/terminal/flags');

// What every bench script shares (pino's benchmarks/utils/runbench.js is the model): its flags
// on the lab's own schema (a bad value is one line and exit 2, never a NaN measured), the
// machine it ran on and the date written with every result, one place the results go, and a
// failure said in one line with exit 1. A script is
//   module.exports = bench({ name, usage, flags, machine, run }, module);
// name: its result file (bench/results/<name>.json); flags: { name: spec with its default };
// machine(): what to add to the machine's description (a tool's version); run(values, { log }):
// the measurement, resolving the result to write (`headline`: what to print, not written).
// Run as a program when it is the main module; required, it is { name, flags, run }.
const RESULTS = process.env.LAB_BENCH_RESULTS || path.join(__dirname, 'results');

function bench(spec, mod) {
  const command = defineCommand({ usage: `usage: ${spec.usage}`, flags: spec.flags || {} });
  const self = Object.freeze({ name: spec.name, flags: spec.flags || {}, run: spec.run, main });

  async function main(argv = process.argv.slice(2)) {
    const log = (line) => process.stderr.write(`${line}\n`);
    let values;
    try {
      const parsed = command.parse(argv);
      if (parsed.help) {
        process.stdout.write(`usage: ${spec.usage}\n`);
        return 0;
      }
      values = parsed.values;
    } catch (err) {
      log(`bench ${spec.name}: ${err.message}`);
      return 2;
    }
    try {
      const { headline, ...result } = await spec.run(values, { log });
      const out = {
        machine: describeMachine(spec.machine ? spec.machine() : {}),
        date: new Date().toISOString(),
        ...result,
      };
      fs.mkdirSync(RESULTS, { recursive: true });
      const file = path.join(RESULTS, `${spec.name}.json`);
      fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
      process.stdout.write(`${headline ? `${JSON.stringify(headline)}\n` : ''}written: ${file}\n`);
      return 0;
    } catch (err) {
      log(`bench ${spec.name} failed: ${err.message}`);
      if (process.env.LAB_DEBUG) log(err.stack);
      return 1;
    }
  }

  if (mod && require.main === mod) {
    main().then((code) => {
      process.exitCode = code;
    });
  }
  return self;
}

// (Numbers with their default: flag.int(1, 3600) with { default }.)
const withDefault = (spec, value) => ({ ...spec, default: value });

module.exports = { bench, flag, withDefault, RESULTS };
