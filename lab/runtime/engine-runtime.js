'use strict';

const dgram = require('node:dgram');
const path = require('node:path');
const { labError } = require('../../common/errors');
const StateFile = require('./state-file');

// What the runtimes on a Docker engine (compose, swarm) share: the state folder and its
// state.json, their own subfolder in it (`dirName`), the engine's environment, and the
// refusal to start a second deployment in one state folder.
class EngineRuntime {
  constructor({ stateDir, host = '127.0.0.1', log = () => {}, env = process.env }, dirName) {
    this.stateDir = path.resolve(stateDir);
    this.host = host;
    this.log = log;
    this.env = env;
    this.state = new StateFile(this.stateDir);
    this.dir = path.join(this.stateDir, dirName);
  }

  readState() {
    return this.state.read();
  }

  writeState(state) {
    this.state.write(state);
  }

  assertNotUp() {
    const { state: existing } = this.state.inspect();
    if (existing) throw labError('LAB_ERR_ALREADY_UP', existing.deployment.label, this.stateDir);
  }

  // Where the runtime probe in the containers sends (lab/probe/): this machine's address as
  // the containers reach it, the gateway of the engine's default bridge (its engine on this
  // machine), or `towards` (an address of this machine's on the way to remote engines: the
  // lab's VM cluster). The collector listens there for each run. { address, listen, options }
  // or { off: why }. preload: where the image holds probe/preload.js; docker(args): runs
  // docker on this runtime's engine, resolving { code, out }.
  async probeState({ probe = true, port, preload, towards = null, profileUs = null }, docker) {
    if (probe === false) return { off: 'deployed with --no-probe' };
    let host = towards;
    if (!host) {
      const r = await docker(['network', 'inspect', 'bridge', '--format', '{{json .IPAM.Config}}']);
      host = r.code === 0 ? bridgeGateway(r.out) : null;
      if (!host) {
        return {
          off: `the engine has no default bridge to reach this machine by (${r.out.trim().split('\n').pop() || 'no answer'})`,
        };
      }
      // The engine on another machine (DOCKER_HOST=tcp://...): its bridge is not this one's.
      // (Bound to find out: a bridge with no container on it is down, and Node's list of
      // interfaces leaves it out.)
      if (!(await isLocalAddress(host)))
        return { off: `the engine's bridge (${host}) is not on this machine: the probe's figures cannot come back` };
    }
    return {
      address: `${host}:${port}`,
      listen: [{ host, port }],
      options: `--require ${preload}`,
      ...(profileUs ? { profileUs } : {}),
    };
  }
}

// Whether this machine has the address: a UDP socket binds there.
function isLocalAddress(host) {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind({ address: host, port: 0 }, () => s.close(() => resolve(true)));
  });
}

// The gateway of a bridge from its IPAM config (docker network inspect ... {{json .IPAM.Config}}):
// its Gateway, or (the default bridge often leaves it out) the first address of its Subnet.
function bridgeGateway(text) {
  let config;
  try {
    config = JSON.parse(String(text).trim());
  } catch {
    return null;
  }
  for (const c of Array.isArray(config) ? config : []) {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(c?.Gateway || '')) return c.Gateway;
    const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(c?.Subnet || '');
    if (m && Number(m[5]) <= 30) {
      const n = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
      const first = ((n & (~0 << (32 - Number(m[5])))) >>> 0) + 1;
      return [first >>> 24, (first >>> 16) & 255, (first >>> 8) & 255, first & 255].join('.');
    }
  }
  return null;
}

// A name of the engine's own (compose project, stack) from the state folder's, so parallel
// runs with their own folders (the tests do that) never share containers.
function engineName(stateDir, suffix = '', maxDirChars = Infinity) {
  const dir =
    path
      .basename(stateDir)
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(-maxDirChars) || 'run';
  return `lab-${dir}${suffix}`;
}

module.exports = {
  bridgeGateway,
  EngineRuntime,
  engineName,
};
