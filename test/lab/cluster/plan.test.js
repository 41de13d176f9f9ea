'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { planNetwork, freeSubnet, range, networkDiff } = require('../../../lab/cluster/network');
const { qemuArgs, nodeFiles } = require('../../../lab/cluster/vm');
const { RECIPE, recipeHash } = require('../../../lab/cluster/recipe');
const { requireClosure } = require('../../helper');
const { syncApp, appManifest, moduleClosure, DEPS } = require('../../../lab/cluster/lab-image');

// The parts of the VM cluster that need no VM: the image recipe, the network plan, QEMU's
// command line, the lab's code as the nodes see it. (npm run test:cluster runs the VMs.)
describe('the node image recipe', () => {
  test('a kernel with IPVS and the engine, a small initrd, an init that says when the engine answers', () => {
    expect(RECIPE.packages).toEqual(expect.arrayContaining(['linux-image-amd64', 'docker.io', 'ipvsadm', 'tini']));
    expect(RECIPE.initrdModules).toEqual(['virtio_pci', 'virtio_blk', 'ext4']);
    expect(RECIPE.init).toMatch(/modprobe "\$m"/);
    expect(RECIPE.init).toMatch(/ip_vs/);
    expect(RECIPE.init).toMatch(/echo "lab-node-ready \$NAME"/);
    expect(RECIPE.init).toMatch(/-H "tcp:\/\/\$\{IP%\/\*\}:2375"/);
    expect(RECIPE.cmdline).toEqual(expect.arrayContaining(['init=/sbin/lab-init', 'apparmor=0']));
  });

  test('its cache name changes with the recipe and only then', () => {
    expect(recipeHash()).toBe(recipeHash());
    expect(recipeHash({ ...RECIPE, packages: [...RECIPE.packages, 'curl'] })).not.toBe(recipeHash());
  });
});

describe('the cluster network', () => {
  test('names that fit a link name, one tap and address per node, the host on the bridge', () => {
    const p = planNetwork({ token: '0123456789abcdef', nodes: 3, subnet: '10.80.0.0/24' });
    expect(p).toMatchObject({ ns: 'labc-012345', hostLink: 'labc012345', hostIp: '10.80.0.1' });
    for (const name of [p.hostLink, p.nsLink, p.bridge, ...p.nodes.map((n) => n.tap)]) {
      expect(name.length).toBeLessThanOrEqual(15);
    }
    expect(p.nodes.map((n) => [n.name, n.ip])).toEqual([
      ['node1', '10.80.0.11'],
      ['node2', '10.80.0.12'],
      ['node3', '10.80.0.13'],
    ]);
    expect(new Set(p.nodes.map((n) => n.mac)).size).toBe(3);
    for (const n of p.nodes) expect(n.mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
  });

  test("what differs in the host's network after down is named, not only its kind", () => {
    const before = {
      links: ['eth0', 'lo'],
      addresses: ['eth0 10.0.0.5/24'],
      routes: ['default eth0 ', '10.0.0.0/24 eth0 '],
      ruleset: 'table inet x {}',
      ipForward: '0',
    };
    expect(networkDiff(before, structuredClone(before))).toEqual([]);
    // Counters are traffic, not configuration.
    const counted = (n) => ({ ...before, ruleset: `chain FORWARD { counter packets ${n} bytes ${n * 60} accept }` });
    expect(networkDiff(counted(0), counted(483))).toEqual([]);
    const after = {
      links: ['eth0', 'labc1a2b3c', 'lo'],
      addresses: ['eth0 10.0.0.5/24', 'labc1a2b3c 10.77.0.1/24'],
      routes: ['default eth0 '],
      ruleset: '',
      ipForward: '1',
    };
    expect(networkDiff(before, after)).toEqual([
      'links: +labc1a2b3c',
      'addresses: +labc1a2b3c 10.77.0.1/24',
      'routes: -10.0.0.0/24 eth0',
      'ruleset changed',
      'ipForward: 0 -> 1',
    ]);
  });

  test('a /24 that no route of the machine overlaps', () => {
    expect(range('10.77.0.0/16')).toEqual([10 * 2 ** 24 + 77 * 2 ** 16, 10 * 2 ** 24 + 77 * 2 ** 16 + 65535]);
    expect(freeSubnet([{ dst: 'default' }, { dst: '192.168.1.0/24' }])).toBe('10.77.0.0/24');
    expect(freeSubnet([{ dst: '10.77.0.0/16' }, { dst: '10.78.0.5' }])).toBe('10.79.0.0/24');
    expect(() => freeSubnet([{ dst: '10.0.0.0/8' }])).toThrow(/no free private/);
  });
});

describe("a node's QEMU", () => {
  const node = { name: 'node2', ip: '10.77.0.12', tap: 'labtap2', mac: '52:54:00:aa:bb:12' };
  const image = { kernel: '/c/vmlinuz', initrd: '/c/initrd.img' };
  const files = nodeFiles('/cl', 'node2');
  const args = (accel) =>
    qemuArgs({ node, files, image, accel, cpus: 1, memoryMiB: 1024, gateway: '10.77.0.1', appShare: '/cl/share' });

  test('its NIC on its own tap (no user-mode network), its disk an overlay, daemonized with a pid file', () => {
    const a = args('tcg').join(' ');
    expect(a).toContain('-netdev tap,id=net0,ifname=labtap2,script=no,downscript=no');
    expect(a).not.toMatch(/-netdev user|slirp|hostfwd/);
    expect(a).toContain(`file=${files.overlay},if=virtio,format=qcow2`);
    expect(a).toContain(`-pidfile ${files.pidFile}`);
    expect(a).toContain('-daemonize');
    expect(a).toContain('lab.name=node2 lab.ip=10.77.0.12/24 lab.gw=10.77.0.1');
    expect(a).toContain('-virtfs local,path=/cl/share,mount_tag=labapp,security_model=none,readonly=on');
  });

  test('TCG or KVM, as asked', () => {
    expect(args('tcg').join(' ')).toContain('-accel tcg,thread=multi,tb-size=256 -cpu max');
    expect(args('kvm').join(' ')).toContain('-accel kvm -cpu host');
  });
});

describe("the lab's code as the nodes see it", () => {
  test('the service, the boxes, the hub, the balancer and the lab, with the node_modules they require', () => {
    const dsts = appManifest().map(([, d]) => d);
    for (const f of [
      '/app/service/index.js',
      '/app/bbox/index.js',
      '/app/hub/index.js',
      '/app/lab/generators/fast-process.js',
    ]) {
      expect(dsts).toContain(f);
    }
    expect(dsts.some((d) => d.startsWith('/app/node_modules/express/'))).toBe(true);
    expect(dsts.some((d) => d.startsWith('/app/node_modules/artillery/'))).toBe(false);
    expect(moduleClosure(['express'])).toEqual(expect.arrayContaining(['express', 'router', 'body-parser']));
  });

  // The nodes run the service, the balancer and the load nodes' engine from this folder: a
  // package one of them requires that the folder lacks kills it at its first require.
  test.each(['service/index.js', 'balancer/index.js', 'lab/generators/remote-shard.js', 'probe/preload.js'])(
    'the packages %s requires are there',
    (entry) => {
      const have = moduleClosure(DEPS);
      expect(requireClosure(entry).mods.filter((m) => !have.includes(m))).toEqual([]);
    },
  );

  test('synced in place: the first time everything, then only what changed; what went is removed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'share-'));
    const first = syncApp(dir);
    expect(first.changed).toBeGreaterThan(100);
    expect(fs.existsSync(path.join(dir, 'app', 'service', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'config', 'config.properties'))).toBe(true);
    fs.writeFileSync(path.join(dir, 'app', 'stale.js'), 'old');
    fs.writeFileSync(path.join(dir, 'app', 'service', 'index.js'), 'edited');
    const again = syncApp(dir);
    expect(again).toEqual({ hash: first.hash, changed: 2 });
    expect(fs.existsSync(path.join(dir, 'app', 'stale.js'))).toBe(false);
  });
});
