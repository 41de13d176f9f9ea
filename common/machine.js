'use strict';

const os = require('node:os');
const { execFileSync } = require('node:child_process');

// What a measurement ran on, recorded with every result: figures from this lab are only
// comparable between runs on similar machines.
function version(cmd, args, pattern) {
  try {
    const out = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
    const m = pattern.exec(out);
    return m ? m[1] : out.trim().split('\n')[0];
  } catch (err) {
    // nginx -v prints on stderr
    const text = `${err.stderr || ''}`;
    const m = pattern.exec(text);
    return m ? m[1] : null;
  }
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
