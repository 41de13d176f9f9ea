'use strict';

// `npm run deploy`'s and `npm run down`'s words and flags: the tables their command lines are
// checked with, read by the commands (lab/commands/deploy.js, down.js), by a study that brings
// a group's deployment up and down as jobs (./job.js), and by the library.

const { names, METHOD_NAMES } = require('../topology/deployments');
const { defineCommand, flag } = require('../terminal/flags');
const { CONTEXT, STATE } = require('../topology/context');
const { KIND_HELP, DEPLOY_FLAGS } = require('../runtime/deploy-plan');
const { APP_HELP } = require('../app/flags');
const { TLS_HELP } = require('../tls/flags');

const USAGE = `usage: npm run deploy -- <deployment> [--replicas N] [--workers N] [--balancer B]
       [--method ${METHOD_NAMES.join('|')}] [--edges N] [--edge-kind K] [--cap NODE=CPU[/PERIOD][,MEMORY]]...
       [--app DIR [--app-cmd CMD] [--health PATH]] [--key KEY] [--engine local|compose|swarm]
       [--placement spread|apart|manager-only]
       [--force] [--port-base P] [--host H] [--state-dir DIR] [--json]
deployments: ${names().join(', ')} (aliases: cluster = multi, replicated-cluster = multi-replicated)
${KIND_HELP}
  --edges N     caching edges between the balancer and the replicas (cdn has 4)
  --placement P on a swarm of several nodes (npm run cluster): spread (default: the entry on
                the manager, the rest where swarm puts it), apart (the servers on the workers,
                away from the entry, as seed 004), manager-only
${APP_HELP}
${TLS_HELP}
  --cap NODE=CPU[/PERIOD][,MEMORY]  caps a node, repeatable: CPU in % of one core (as docker
                stats), MEMORY with K/M/G, e.g. --cap edge=2%,25M --cap balancer=2%,25M. PERIOD is
                the CFS period the share is given over (default 100ms; 1ms to 1s, the quota at
                least 1 ms), e.g. --cap edge=2%/500ms. NODE is a role (balancer, edge, replica,
                backend, bbox) or one node's name (replica-2). Linux cgroups, as root.`;

const DEPLOY = defineCommand({
  usage: USAGE,
  positionals: { names: ['deployment'] },
  flags: { ...CONTEXT, ...DEPLOY_FLAGS },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const DEPLOY_HELP = [USAGE, DEPLOY.needsHelp()].filter(Boolean).join('\n');

const DOWN_USAGE = `usage: npm run down [-- --state-dir DIR] [--delete-data] [--json]
Stops everything the lab started in the state folder and removes the folders of its data
stores (--with), but for data a deploy kept (--keep-data), which it names.
  --delete-data  delete the kept data too`;
const DOWN = defineCommand({ usage: DOWN_USAGE, flags: { ...STATE, 'delete-data': flag.bool() } });

module.exports = { DEPLOY, DEPLOY_HELP, DOWN, DOWN_USAGE };
