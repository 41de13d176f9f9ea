'use strict';

const { defineKind, INNER } = require('./common/proxy');

// Swarm's routing mesh (seed 004's stage 2): no proxy of the lab's; the service's port is
// published through the ingress network, where IPVS in every node's kernel balances
// connections over the tasks behind a virtual IP.
module.exports = defineKind({
  name: 'mesh',
  role: 'balancer',
  layer: 4,
  what: "swarm's routing mesh (ingress, IPVS)",
  label: 'routing mesh',
  runtimes: ['swarm'],
  needsIpvs: true,
  // Changes the service itself instead of adding one: a VIP, and its port on the ingress.
  stackTransform: (stack, ctx) => ({
    ...stack,
    services: {
      ...stack.services,
      service: {
        ...stack.services.service,
        ports: [{ target: INNER.service, published: ctx.port, protocol: 'tcp', mode: 'ingress' }],
        deploy: { ...stack.services.service.deploy, endpoint_mode: 'vip' },
      },
    },
  }),
});
