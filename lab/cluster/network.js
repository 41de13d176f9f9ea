'use strict';

const { execFileSync } = require('node:child_process');

// The cluster's network, made of the lab's own devices only: a network namespace holding a
// bridge, one tap per node (QEMU's NIC, started inside the namespace), and a veth pair whose
// host end gives this machine an address on the bridge. The host reaches every node
// directly (no NAT, no user-mode stack: the generator's traffic is the kernel's own), and
// nothing is routed to or from elsewhere: the nodes have no gateway beyond the host, and the
// host forwards nothing for them. Deleting the namespace takes every device with it.

// A plan is data: names from the cluster's token (at most 15 characters for a link name),
// addresses in a private /24 the host does not route yet.
function planNetwork({ token, nodes, subnet }) {
  const t = token.slice(0, 6);
  // Two bytes of the MAC from the token, the last from the node: unique per cluster.
  const h = require('node:crypto').createHash('sha256').update(token).digest('hex');
  const net = subnet.replace(/\.0\/24$/, '');
  return {
    ns: `labc-${t}`,
    bridge: 'labbr',
    hostLink: `labc${t}`,
    nsLink: 'labhost',
    subnet,
    hostIp: `${net}.1`,
    nodes: Array.from({ length: nodes }, (_, i) => ({
      name: `node${i + 1}`,
      ip: `${net}.${11 + i}`,
      tap: `labtap${i + 1}`,
      mac: `52:54:00:${h.slice(0, 2)}:${h.slice(2, 4)}:${(0x11 + i).toString(16).padStart(2, '0')}`,
    })),
  };
}

const sh = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 }).toString();

// An IPv4 CIDR as [first, last] addresses (integers); a bare address is a /32.
function range(cidr) {
  const [base, bits = '32'] = cidr.split('/');
  const n = base.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  const first = n - (n % size);
  return [first, first + size - 1];
}

// The first 10.77..10.126.0.0/24 that no route of this machine overlaps.
function freeSubnet(routes = JSON.parse(sh('ip', ['-j', 'route', 'show', 'table', 'all']))) {
  const used = routes
    .map((r) => r.dst)
    .filter((d) => d && /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(d))
    .map(range);
  for (let x = 77; x <= 126; x++) {
    const [a, b] = range(`10.${x}.0.0/24`);
    if (!used.some(([c, d]) => a <= d && c <= b)) return `10.${x}.0.0/24`;
  }
  throw new Error('no free private /24 in 10.77-10.126.0.0 for the cluster');
}

// Makes the plan's devices. Each step is undone by removeNetwork, whatever step failed.
function applyNetwork(plan) {
  const inNs = (...args) => sh('ip', ['-n', plan.ns, ...args]);
  sh('ip', ['netns', 'add', plan.ns]);
  inNs('link', 'set', 'lo', 'up');
  inNs('link', 'add', plan.bridge, 'type', 'bridge');
  inNs('link', 'set', plan.bridge, 'up');
  sh('ip', ['link', 'add', plan.hostLink, 'type', 'veth', 'peer', 'name', plan.nsLink, 'netns', plan.ns]);
  inNs('link', 'set', plan.nsLink, 'master', plan.bridge, 'up');
  sh('ip', ['addr', 'add', `${plan.hostIp}/24`, 'dev', plan.hostLink]);
  sh('ip', ['link', 'set', plan.hostLink, 'up']);
  for (const n of plan.nodes) {
    inNs('tuntap', 'add', 'dev', n.tap, 'mode', 'tap');
    inNs('link', 'set', n.tap, 'master', plan.bridge, 'up');
  }
}

// Removes everything of the plan that exists; never anything else. Returns what it removed.
function removeNetwork(plan) {
  const removed = [];
  const namespaces = sh('ip', ['netns', 'list']);
  if (new RegExp(`^${plan.ns}(\\s|$)`, 'm').test(namespaces)) {
    sh('ip', ['netns', 'del', plan.ns]);
    removed.push(`namespace ${plan.ns}`);
  }
  // The veth's host end goes with its peer; if it is still there, it is removed by name.
  try {
    sh('ip', ['link', 'show', plan.hostLink]);
    sh('ip', ['link', 'del', plan.hostLink]);
    removed.push(`link ${plan.hostLink}`);
  } catch {
    // already gone
  }
  return removed;
}

// The host's network as a test or `down` compares it: links, addresses, routes, the
// nftables ruleset and ip_forward.
function hostNetwork() {
  const read = (cmd, args) => {
    try {
      return sh(cmd, args);
    } catch {
      return null;
    }
  };
  return {
    links: JSON.parse(read('ip', ['-j', 'link']) || '[]')
      .map((l) => l.ifname)
      .sort(),
    addresses: JSON.parse(read('ip', ['-j', 'addr']) || '[]')
      .flatMap((l) => (l.addr_info || []).map((a) => `${l.ifname} ${a.local}/${a.prefixlen}`))
      .sort(),
    routes: JSON.parse(read('ip', ['-j', 'route', 'show', 'table', 'all']) || '[]')
      .map((r) => `${r.dst} ${r.dev || ''} ${r.table || ''}`)
      .sort(),
    ruleset: withoutCounters(read('nft', ['list', 'ruleset'])),
    ipForward: read('cat', ['/proc/sys/net/ipv4/ip_forward'])?.trim() ?? null,
  };
}

// A ruleset's configuration: its counters move with every packet that crosses a rule, so
// two readings of the same rules differ by them (seen in CI: "ruleset changed" between
// `cluster up` and `down`, with only a FORWARD chain's packet counts moved).
const withoutCounters = (ruleset) => ruleset && ruleset.replace(/counter packets \d+ bytes \d+/g, 'counter');

// What differs between two readings of hostNetwork(), in words a person can act on:
// ["links: +labc1a2b3c", "ipForward: 0 -> 1", "ruleset changed"]. Empty when they agree.
function networkDiff(before, after) {
  const out = [];
  for (const k of ['links', 'addresses', 'routes']) {
    const b = new Set(before[k] || []);
    const a = new Set(after[k] || []);
    const added = [...a].filter((x) => !b.has(x)).map((x) => `+${x.trim()}`);
    const gone = [...b].filter((x) => !a.has(x)).map((x) => `-${x.trim()}`);
    if (added.length || gone.length) out.push(`${k}: ${[...added, ...gone].join(', ')}`);
  }
  if (withoutCounters(before.ruleset) !== withoutCounters(after.ruleset)) out.push('ruleset changed');
  if (before.ipForward !== after.ipForward) out.push(`ipForward: ${before.ipForward} -> ${after.ipForward}`);
  return out;
}

module.exports = {
  planNetwork,
  freeSubnet,
  range,
  applyNetwork,
  removeNetwork,
  hostNetwork,
  networkDiff,
  withoutCounters,
};
