'use strict';

// Load nodes as tasks of one swarm service (--load-nodes N): N replicas of the service's
// image running lab/generators/remote-shard.js, at most one per node while the swarm has
// that many (more per node only when asked for more nodes than it has), on the nodes' own
// network (no overlay or NAT between the generator and what it measures). The service is
// named and labelled for this run, and `stop` removes that service only.
const crypto = require('node:crypto');
const { run, tail } = require('../runtime/engine-run');
const { labError } = require('../../common/errors');
const { IMAGES } = require('../topology/compose-file');

const OWNER_LABEL = 'node-deploy-lab.load';

// env: the docker client's environment (DOCKER_HOST ...). image: what the tasks run (the
// lab's service image, which carries lab/generators). appMount: the folder on every node
// holding the lab's code (the lab's VM cluster shares it as /lab/app), or null when the
// image has it.
function swarmLauncher({ env, image = IMAGES.service, appMount = null, log = () => {} }) {
  const docker = (args, timeoutMs = 60000) => run('docker', args, { env, timeoutMs });
  return {
    async launch({ count, env: taskEnv }) {
      const nodes = await docker(['node', 'ls', '--format', '{{.Hostname}} {{.Status}} {{.Availability}}']);
      if (nodes.code !== 0) {
        throw labError(
          'LAB_ERR_USAGE',
          `--load-nodes runs the generator as tasks of a swarm, and ${env.DOCKER_HOST || 'the local engine'} is not a swarm manager (${tail(nodes.out, 1)}): deploy with --engine swarm on one (the lab's VM cluster: npm run cluster -- up, then eval "$(npm run -s cluster -- env)")`,
        );
      }
      const ready = nodes.out.split('\n').filter((l) => /\bReady\b/.test(l) && /\bActive\b/.test(l)).length;
      const perNode = Math.ceil(count / Math.max(1, ready));
      if (count > ready) log(`  the swarm has ${ready} ready node(s): ${perNode} load task(s) per node`);
      const id = crypto.randomBytes(4).toString('hex');
      const name = `lab-load-${id}`;
      const args = [
        'service',
        'create',
        '--detach',
        '--name',
        name,
        '--label',
        `${OWNER_LABEL}=${id}`,
        '--replicas',
        String(count),
        '--replicas-max-per-node',
        String(perNode),
        '--restart-condition',
        'none',
        '--network',
        'host',
        '--no-resolve-image',
        '--env',
        'LAB_NODE={{.Node.Hostname}}',
        '--env',
        'LAB_TASK={{.Task.Slot}}',
        ...Object.entries(taskEnv).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
        ...(appMount ? ['--mount', `type=bind,source=${appMount},target=/app,readonly`] : []),
        '--workdir',
        '/app',
        image,
        'node',
        'lab/generators/remote-shard.js',
      ];
      const created = await docker(args);
      if (created.code !== 0)
        throw labError('LAB_ERR_PROCESS', 'docker service create (the load tasks)', tail(created.out));
      log(`  load tasks: service ${name}, ${count} task(s)`);
      return {
        name,
        // Why the tasks are not here: their states and errors as swarm says.
        async why() {
          const ps = await docker([
            'service',
            'ps',
            '--no-trunc',
            '--format',
            '{{.Node}}: {{.CurrentState}} {{.Error}}',
            name,
          ]);
          return ps.out.trim().split('\n').slice(0, count).join('; ');
        },
        // Removes this run's service (identified by its label too), and with it every task.
        async stop() {
          const label = await docker([
            'service',
            'inspect',
            '--format',
            `{{index .Spec.Labels "${OWNER_LABEL}"}}`,
            name,
          ]);
          if (label.code !== 0 || label.out.trim() !== id) return;
          const rm = await docker(['service', 'rm', name]);
          if (rm.code !== 0) throw labError('LAB_ERR_PROCESS', `docker service rm ${name}`, tail(rm.out));
        },
      };
    },
  };
}

module.exports = { swarmLauncher, OWNER_LABEL };
