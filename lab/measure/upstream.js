'use strict';

// The replica that answered, from what the entry named (X-Lab-Upstream). nginx's
// $upstream_addr lists every replica a request tried ("A, B" when A refused and B answered;
// " : " between internal redirects): the last one answered. Read whole, a retried answer
// counted as one replica more ({A, B, "A, B"} read as three), so a deploy could say "up" with
// two of its three replicas serving: the likely cause of CI's swarm --app test seeing two of
// three tasks after its deploy said "up" (the run of 0857276; its logs were not kept). The
// report's "Which replica answered" had a row "A, B" too. (The entry's time to the answer,
// X-Lab-Upstream-S, is its last value as well: lab/generators/keepalive/response-parser.js.)
function answeredBy(named) {
  if (named === undefined || named === null) return named;
  return triedBy(named).pop();
}

// Every replica the entry tried for one request, in order ("A, B" is [A, B]). A 5xx naming
// "A, B" was given after A failed too: a rollout's drop is A's when A was the one stopping.
function triedBy(named) {
  return String(named).split(/\s*,\s*|\s+:\s+/);
}

// Answers counted by what the entry named ({ "A": n, "A, B": m }), as counts by replica, each
// retried answer for the replica that answered it and named by `names` (address: name) where
// the deployment named it.
function byReplica(counts, names = {}) {
  const out = {};
  for (const [named, n] of Object.entries(counts)) {
    const replica = answeredBy(named);
    const name = names[replica] ?? replica;
    out[name] = (out[name] || 0) + n;
  }
  return out;
}

module.exports = { answeredBy, triedBy, byReplica };
