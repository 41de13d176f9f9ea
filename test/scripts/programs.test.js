'use strict';

// The programs of the deployment's nodes are declared once, by their kinds and stores: the
// set-up installs what they declare, the cluster's image copies what they declare, and
// nothing lists them by hand beside.

const fs = require('node:fs');
const path = require('node:path');
const { packages } = require('../../scripts/programs');
const { KINDS } = require('../../lab/kinds');
const { STORES } = require('../../lab/stores');
const { BINARIES } = require('../../lab/cluster/lab-image');

const ROOT = path.join(__dirname, '..', '..');

test('every kind that runs a program of its own declares its packages and its program', () => {
  for (const k of Object.values(KINDS)) {
    if (k.nginx || k.bin) {
      expect({ kind: k.name, apt: k.programs.apt.length > 0 }).toEqual({ kind: k.name, apt: true });
      for (const bin of k.programs.bins) expect(bin).toMatch(/^\/usr\/s?bin\/[a-z]+$/);
    } else expect({ kind: k.name, programs: k.programs }).toEqual({ kind: k.name, programs: { apt: [], bins: [] } });
  }
  expect(KINDS['nginx-l4'].programs.apt).toContain('libnginx-mod-stream');
});

test('the set-up installs what the kinds and stores declare, and names none of them itself', () => {
  const all = packages('all');
  for (const k of Object.values(KINDS)) for (const p of k.programs.apt) expect(all).toContain(p);
  for (const s of Object.values(STORES)) expect(all).toContain(s.package);
  expect(packages('run')).toEqual(['nginx', 'libnginx-mod-stream']);
  const setup = fs.readFileSync(path.join(ROOT, 'scripts', 'setup.sh'), 'utf8');
  const listed = setup.split('\n').filter((l) => /^\s*(required|optional)(\+)?=|^\s*\w+\) required\+=/.test(l));
  expect(listed.length).toBeGreaterThan(3);
  for (const p of all)
    for (const line of listed)
      expect({ line, p, named: new RegExp(`[( ]${p}[ )]`).test(line) }).toMatchObject({ named: false });
});

test("the cluster's image copies the programs of the kinds that run on a swarm, and only theirs", () => {
  const bins = BINARIES.map((b) => b.dst);
  expect(bins[0]).toBe('/usr/local/bin/node');
  const swarm = Object.values(KINDS).filter((k) => k.runtimes.includes('swarm'));
  for (const k of swarm) for (const b of k.programs.bins) expect(bins).toContain(b);
  expect(bins).toEqual(expect.arrayContaining(['/usr/sbin/nginx', '/usr/sbin/haproxy', '/usr/bin/caddy']));
  // Varnish is an edge of the local and compose engines only.
  expect(bins).not.toContain('/usr/sbin/varnishd');
  expect(new Set(bins).size).toBe(bins.length);
});
