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
// the measurement, resolving the result to write (`headline`: what to print, not written);
// positionals: as the lab's commands declare theirs ({ names: ['dir'] }), given to run as
// { positionals }. cleanup(): what a failure must still take down (the lab's cleanups);
// exit: the process ends when the bench does (a pm2 or engine client would hold it open).
// Run as a program when it is the main module; required, it is { name, flags, run }.
const RESULTS = process.env.LAB_BENCH_RESULTS || path.join(__dirname, 'results');

function bench(spec, mod) {
  const command = defineCommand({
    usage: `usage: ${spec.usage}`,
    flags: spec.flags || {},
    ...(spec.positionals ? { positionals: spec.positionals } : {}),
  });
  const self = Object.freeze({ name: spec.name, flags: spec.flags || {}, run: spec.run, main });

  async function main(argv = process.argv.slice(2)) {
    const log = (line) => process.stderr.write(`${line}\n`);
    let values;
    let positionals;
    try {
      const parsed = command.parse(argv);
      if (parsed.help) {
        process.stdout.write(`usage: ${spec.usage}\n`);
        return 0;
      }
      ({ values, positionals } = parsed);
    } catch (err) {
      log(`bench ${spec.name}: ${err.message}`);
      return 2;
    }
    try {
      const { headline, ...result } = await spec.run(values, { log, positionals });
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
      if (spec.cleanup) await spec.cleanup().catch((e) => log(`bench ${spec.name}: cleaning up: ${e.message}`));
      return 1;
    }
  }

  if (mod && require.main === mod) {
    main().then((code) => {
      process.exitCode = code;
      if (spec.exit) process.exit(code);
    });
  }
  return self;
}

// (Numbers with their default: flag.int(1, 3600) with { default }.)
const withDefault = (spec, value) => ({ ...spec, default: value });

// The flags most benches take, each with the bench's own default.
const common = {
  seconds: (d) => withDefault(flag.int(1, 3600), d),
  rounds: (d) => withDefault(flag.int(1, 100), d),
  concurrency: (d) => withDefault(flag.int(1, 10000), d),
  portBase: (d) => withDefault(flag.int(1024, 32700), d),
};

// The CPU of this process's waited-for children, in seconds: read before and after running a
// C tool (execFile waits for it), the difference is that tool's CPU. Fields 16 and 17 of
// /proc/self/stat (cutime, cstime; the first after the name is field 3), in clock ticks.
let clockTicks = null;
function childCpu() {
  clockTicks ??=
    Number(require('node:child_process').spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
  const t = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(t[13]) + Number(t[14])) / clockTicks;
}

// autocannon 9 for the benches that set the lab beside it (not a dependency of the lab): from
// `given` (their --autocannon DIR), or installed once into a scratch folder.
function autocannonDir(given) {
  if (given) return given;
  const os = require('node:os');
  const dir = path.join(os.tmpdir(), 'lab-bench-autocannon');
  if (!fs.existsSync(path.join(dir, 'node_modules', 'autocannon'))) {
    process.stderr.write(`installing autocannon 9 into ${dir} (not a dependency of the lab)\n`);
    fs.mkdirSync(dir, { recursive: true });
    const r = require('node:child_process').spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, 'autocannon@9'],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error('npm install autocannon failed: pass --autocannon DIR');
  }
  return dir;
}

module.exports = { bench, flag, withDefault, common, childCpu, autocannonDir, RESULTS };
