'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { tcpOpen } = require('./statsd');
const { sleep, stopChild } = require('../ownership/procs');
const { helperEnv } = require('../ownership/adopt');
const { claimDir } = require('../ownership/dirs');
const { own } = require('../ownership/cleanups');
const { pruneGraphite } = require('./graphite-prune');

// Graphite's carbon-cache from Debian's graphite-carbon, as the lab's own process: its
// config, whisper files, logs and pid in `dir`. LAB_CARBON names another carbon-cache.
function findCarbon(env = process.env) {
  const bin = env.LAB_CARBON || '/usr/bin/carbon-cache';
  try {
    fs.accessSync(bin, fs.constants.X_OK);
    return bin;
  } catch {
    return null;
  }
}

const { SCHEMAS, AGGREGATION } = require('../topology/graphite-config');

function carbonConf({ dir, host, linePort, picklePort, queryPort }) {
  return `[cache]
STORAGE_DIR = ${dir}/storage
LOCAL_DATA_DIR = ${dir}/storage/whisper
WHITELISTS_DIR = ${dir}/storage/lists
CONF_DIR = ${dir}
LOG_DIR = ${dir}/log
PID_DIR = ${dir}
# Empty: never switch to the _graphite user (it may not exist, and the files are ours).
USER =
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = inf
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = ${host}
LINE_RECEIVER_PORT = ${linePort}
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = ${host}
PICKLE_RECEIVER_PORT = ${picklePort}
CACHE_QUERY_INTERFACE = ${host}
CACHE_QUERY_PORT = ${queryPort}
LOG_LISTENER_CONN_SUCCESS = False
LOG_UPDATES = False
LOG_CREATES = False
WHISPER_AUTOFLUSH = False
`;
}

// Resolves { pid, stop, whisperDir, port } or { error } (not installed, or did not start).
async function startCarbon({ dir, host, linePort, picklePort, queryPort }) {
  const bin = findCarbon();
  if (!bin)
    return { error: 'carbon-cache is not installed (run `npm run setup` as root, or apt-get install graphite-carbon)' };
  claimDir(dir, 'graphite/ in --state-dir');
  pruneGraphite(path.join(dir, 'storage', 'whisper'));
  fs.mkdirSync(path.join(dir, 'storage', 'whisper'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'log'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'storage-schemas.conf'), SCHEMAS);
  fs.writeFileSync(path.join(dir, 'storage-aggregation.conf'), AGGREGATION);
  const conf = path.join(dir, 'carbon.conf');
  fs.writeFileSync(conf, carbonConf({ dir, host, linePort, picklePort, queryPort }));
  const log = fs.openSync(path.join(dir, 'carbon.out.log'), 'w');
  // Debian's tools run under /usr/bin/python3, not another python3 earlier in PATH.
  const child = spawn('/usr/bin/python3', [bin, `--config=${conf}`, '--nodaemon', 'start'], {
    stdio: ['ignore', log, log],
    cwd: dir,
    env: helperEnv(),
  });
  fs.closeSync(log);
  // Owned from its spawn: a Ctrl-C while it comes up (before the run owns the monitoring)
  // stops it too. (It was once left running by an interrupted run.)
  const release = own(() => stopChild(child, 5000));
  const stop = async () => {
    await stopChild(child, 5000);
    release();
  };
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await tcpOpen(linePort, host))
      return { pid: child.pid, stop, whisperDir: path.join(dir, 'storage', 'whisper'), port: linePort };
    await sleep(200);
  }
  await stop();
  const tail = fs.readFileSync(path.join(dir, 'carbon.out.log'), 'utf8').trim().split('\n').slice(-2).join(' | ');
  return { error: `carbon-cache did not start: ${tail}` };
}

module.exports = { startCarbon, findCarbon, SCHEMAS, AGGREGATION };
