'use strict';

const os = require('node:os');
const { spawnSync } = require('node:child_process');

// What a measurement ran on, recorded with every result: figures from this lab are only
// comparable between runs on similar machines.
// Some tools print their version on stderr (nginx -v): read both streams.
function version(cmd, args, pattern) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 5000 });
  if (r.error) return null;
  const m = pattern.exec(`${r.stdout || ''}${r.stderr || ''}`);
  return m ? m[1] : null;
}

function describeMachine(extra = {}) {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    os: `${os.type()} ${os.release()}`,
    platform: process.platform,
    arch: process.arch,
    cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.versions.node,
    nginx: version('nginx', ['-v'], /nginx\/([\d.]+)/) || version('/usr/sbin/nginx', ['-v'], /nginx\/([\d.]+)/),
    ...extra,
  };
}

module.exports = describeMachine;
