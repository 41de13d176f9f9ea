'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { STORES, parseWith, storesEnv } = require('../../../lab/stores');
const postgres = require('../../../lab/stores/postgres');

test('--with takes each store once, the database first, and refuses what the lab does not run', () => {
  expect(parseWith('redis,postgres')).toEqual(['postgres', 'redis']);
  expect(parseWith(' redis , redis ')).toEqual(['redis']);
  expect(() => parseWith('mysql')).toThrow(/--with mysql: not a store the lab runs \(postgres, redis\)/);
  expect(() => parseWith(',')).toThrow(/name one or more of postgres, redis/);
});

test('your service is given each store at the address of this deployment', () => {
  const env = storesEnv(['postgres', 'redis'], (name) => ({ host: '127.0.0.1', port: name === 'redis' ? 9044 : 9043 }));
  expect(env).toEqual({
    DATABASE_URL: 'postgres://lab:lab@127.0.0.1:9043/app',
    PGHOST: '127.0.0.1',
    PGPORT: '9043',
    PGUSER: 'lab',
    PGPASSWORD: 'lab',
    PGDATABASE: 'app',
    REDIS_URL: 'redis://127.0.0.1:9044',
  });
  expect(storesEnv([], () => null)).toEqual({});
});

test('every store says what it is, its package and its port', () => {
  for (const [name, s] of Object.entries(STORES)) {
    expect(s.name).toBe(name);
    for (const k of ['role', 'what', 'package', 'program', 'port']) expect(typeof s[k]).toBe('string');
    for (const k of ['findBin', 'reachable', 'prepare', 'command', 'ready', 'init', 'env']) {
      expect(typeof s[k]).toBe('function');
    }
  }
});

test("PostgreSQL's programs: the newest version of Debian's layout, or none", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-pg-'));
  try {
    expect(postgres.findBin(path.join(root, 'none'))).toBeNull();
    for (const v of ['13', '15', 'x']) {
      fs.mkdirSync(path.join(root, v, 'bin'), { recursive: true });
      for (const p of ['postgres', 'initdb']) fs.writeFileSync(path.join(root, v, 'bin', p), '');
    }
    fs.mkdirSync(path.join(root, '16', 'bin'), { recursive: true }); // no programs: not a version
    expect(postgres.findBin(root)).toBe(path.join(root, '15', 'bin'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the server runs in the foreground with the connection limit asked for, as its own user when root', () => {
  const { command, args } = postgres.command({
    bin: '/b',
    dir: '/d',
    host: '127.0.0.1',
    port: 9043,
    maxConnections: 7,
  });
  const all = [command, ...args].join(' ');
  expect(all).toMatch(/\/b\/postgres -D \/d\/data -p 9043 -k \/d/);
  expect(all).toMatch(/max_connections=7/);
  if (process.getuid() === 0) expect(all).toMatch(/^\/usr\/bin\/setpriv --reuid postgres/);
});
