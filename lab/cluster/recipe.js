'use strict';

const crypto = require('node:crypto');

// What a cluster node's disk image is made of, as data: Debian's packages (debootstrap) and
// the few files the lab writes into it. The image is built once and cached under a name
// made from this recipe's hash, so a change here builds a new one and an old one is never
// taken for it.
const SUITE = 'bookworm';
const PACKAGES = [
  // The kernel (its modules too: ip_vs for the routing mesh, overlay, vxlan, br_netfilter)
  // and what makes a small initrd for it.
  'linux-image-amd64',
  'initramfs-tools',
  'kmod',
  // The engine, and what swarm needs from the node.
  'docker.io',
  'iptables',
  'iproute2',
  'ipvsadm',
  'tini',
  'procps',
  'ca-certificates',
];

// The node's first process (the kernel's init=): no systemd, whose start under emulation
// costs a minute; it mounts what the engine needs and the lab's code shared by the host
// (/lab), names the node and sets its address from the kernel's command line (lab.name=,
// lab.ip=), loads the modules swarm uses, starts
// containerd and dockerd (the API on the node's address, for the lab on the host), and
// stays as PID 1 under tini, which reaps. It says "lab-node-ready" on the console once the
// engine answers, which the host waits for.
const INIT = `#!/bin/sh
# The lab's init for a cluster node (lab/cluster/recipe.js): rewritten at every image build.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /run /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -o remount,rw /
arg() { for w in $(cat /proc/cmdline); do case "$w" in "$1="*) echo "\${w#*=}";; esac; done; }
NAME=$(arg lab.name); IP=$(arg lab.ip); GW=$(arg lab.gw)
hostname "$NAME"; echo "$NAME" > /etc/hostname
printf '127.0.0.1 localhost\\n%s %s\\n' "\${IP%/*}" "$NAME" > /etc/hosts
for m in virtio_net 9pnet_virtio 9p overlay br_netfilter bridge veth vxlan ip_vs ip_vs_rr ip_vs_wrr ip_vs_sh nf_conntrack xt_conntrack xt_ipvs xt_mark iptable_nat iptable_filter iptable_mangle; do modprobe "$m" 2>/dev/null; done
sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
ip link set lo up
ip link set eth0 up
ip addr add "$IP" dev eth0
[ -n "$GW" ] && ip route add default via "$GW"
echo "lab: $NAME at $IP"
# The lab's code, shared read-only by the host (QEMU's 9p): the tasks mount it as /app.
mkdir -p /lab && mount -t 9p -o trans=virtio,version=9p2000.L,ro labapp /lab 2>/dev/null && echo "lab: /lab shared"
containerd > /var/log/containerd.log 2>&1 &
dockerd -H unix:///var/run/docker.sock -H "tcp://\${IP%/*}:2375" --containerd=/run/containerd/containerd.sock > /var/log/dockerd.log 2>&1 &
i=0; until docker info > /dev/null 2>&1; do i=$((i+1)); [ $i -gt 600 ] && break; sleep 0.5; done
echo "lab-node-ready $NAME"
exec tini -s -- sh -c 'while :; do sleep 3600; done'
`;

// The initrd holds only what finds the root disk (a 7 MiB one against 37 MiB: a faster boot).
const INITRD_MODULES = ['virtio_pci', 'virtio_blk', 'ext4'];

// The kernel's command line; AppArmor off (docker.io 20.10 refuses to start containers when
// the kernel has it and the image has no apparmor_parser), names kept as eth0.
const CMDLINE = ['console=ttyS0', 'root=/dev/vda', 'rw', 'init=/sbin/lab-init', 'apparmor=0', 'net.ifnames=0', 'quiet'];

// Size of the root file system the packages go in; each node writes to its own overlay.
const DISK_GIB = 6;

const RECIPE = Object.freeze({
  suite: SUITE,
  packages: PACKAGES,
  init: INIT,
  initrdModules: INITRD_MODULES,
  cmdline: CMDLINE,
  diskGiB: DISK_GIB,
});

// The cache name of the image this recipe makes.
const recipeHash = (recipe = RECIPE) =>
  crypto.createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 12);

module.exports = { RECIPE, recipeHash };
