'use strict';

const { kindOf, reachesAllFromOneClient } = require('../kinds');
const { answeredBy } = require('../measure/upstream');

// When a deployment answers through its entry, for every runtime: each probe asks a URI of
// its own (with `hash`, one URI would only ever reach one node) until every replica (and
// every caching edge) has answered. The lab's service says which replica it is (X-Instance);
// your service (--app) does not, and the L7 entry kinds name the replica they used
// (X-Lab-Upstream, lab/kinds/); behind an L4 entry one need only answer, each replica
// having been checked on its own port where the runtime can reach it.

// The replica an answer came from (the last one a retried request tried), or undefined.
const upstreamOf = (r) => answeredBy(r.headers['x-lab-upstream'] || r.headers['x-lab-backend']);

// { url(base, i), accept(status), until(answers) } for a deployment (with `entry`, its kind's
// name; `replicas` may be fewer than the deployment's, while a swarm scales).
function entryProbe(deployment, { replicas = deployment.replicas, last = Infinity } = {}) {
  const app = deployment.app ?? null;
  const path = app ? (app.health ?? '/') : '/healthz';
  const entryKind = deployment.balancer.kind;
  const all = reachesAllFromOneClient(deployment.balancer) && !(app && !namesUpstream(entryKind));
  const who = (r) => (app ? upstreamOf(r) : r.headers['x-instance']);
  return {
    path,
    url: (base, i) => `${base}${path}${path.includes('?') ? '&' : '?'}probe=${i}`,
    accept: appAccepts(app),
    until: (answers) => {
      const seen = answers.slice(-last);
      return (
        new Set(seen.map(who)).size >= (all ? replicas : 1) &&
        new Set(seen.map((a) => a.headers['x-edge'])).size >= (all && deployment.edges ? deployment.edges : 1)
      );
    },
  };
}

// Which answers say a node is up: the lab's own, 200; yours, any HTTP answer but the entry's
// own gateway errors (502, 504: it reached no replica, as when your service listens on
// 127.0.0.1 inside a container), or below 500 on its --health path.
function appAccepts(app) {
  if (!app) return (status) => status === 200;
  return app.health ? (status) => status < 500 : (status) => status !== 502 && status !== 504;
}

// What to say when the entry of your service's containers kept answering a gateway error.
function gatewayHint(err, app) {
  if (!app || !/^HTTP 50[24]$/.test(err.message)) return '';
  return `\nthe entry answered ${err.message}: it reached no replica. Inside a container 127.0.0.1 is the container itself: your service must listen on every interface (listen(PORT), not listen(PORT, '127.0.0.1'))`;
}

const namesUpstream = (kindName) => Boolean(kindOf(kindName).namesUpstream);

module.exports = { entryProbe, appAccepts, gatewayHint, upstreamOf, namesUpstream };
