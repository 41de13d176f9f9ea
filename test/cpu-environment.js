'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { TestEnvironment } = require('jest-environment-node');

// What each test file costs in CPU, not only in time (LAB_TEST_CPU=1, bench/tests.js --cpu):
// the jest worker moves itself into a CPU-accounting control group of the file's own before the
// file runs, so every process the file starts (the lab, pm2 and its daemon, nginx, the
// replicas, generators, Chromium) is counted in it, whatever it is reparented to; the group's
// total is read when the file ends and kept in test-output/cpu/<hash>.json. (cgroup v1's
// cpuacct, as root: without it the file runs uncounted, and the record says so.)
const ROOT = path.join(__dirname, '..');
const BASE = '/sys/fs/cgroup/cpuacct';
const OUT = path.join(ROOT, 'test-output', 'cpu');

class CpuEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.file = path.relative(ROOT, context.testPath);
    this.group = null;
  }

  async setup() {
    await super.setup();
    if (!fs.existsSync(path.join(BASE, 'cpuacct.usage'))) return;
    const id = crypto.createHash('sha1').update(this.file).digest('hex').slice(0, 12);
    const group = path.join(BASE, 'lab-tests', `${process.env.LAB_TEST_RUN || 'run'}-${id}`);
    try {
      fs.mkdirSync(group, { recursive: true });
      fs.writeFileSync(path.join(group, 'cgroup.procs'), String(process.pid));
      this.group = group;
      this.started = Date.now();
    } catch {
      this.group = null;
    }
  }

  async teardown() {
    if (this.group) {
      const ns = Number(fs.readFileSync(path.join(this.group, 'cpuacct.usage'), 'utf8'));
      fs.mkdirSync(OUT, { recursive: true });
      const record = {
        file: this.file,
        cpuS: Math.round(ns / 1e8) / 10,
        wallS: Math.round((Date.now() - this.started) / 100) / 10,
      };
      fs.writeFileSync(path.join(OUT, `${path.basename(this.group)}.json`), `${JSON.stringify(record)}\n`);
      // (The worker back to the root group: the next file's group counts the next file.)
      try {
        fs.writeFileSync(path.join(BASE, 'cgroup.procs'), String(process.pid));
        // (Its group removed when nothing is left in it; a process still there keeps it.)
        fs.rmdirSync(this.group);
      } catch {
        // (Left in this group, or something still in it: the next file's setup moves the
        // worker anyway, and the group goes with the machine's next boot.)
      }
    }
    await super.teardown();
  }
}

module.exports = CpuEnvironment;
