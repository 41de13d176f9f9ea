'use strict';

const { loadConfig } = require('../../service/config');
const { runProgram } = require('../helper');

describe('service config', () => {
  test('defaults match the course report', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, workers: 1, heavyMs: 5000, host: '127.0.0.1' });
    expect(Object.isFrozen(c)).toBe(true);
  });

  test.each([
    ['WORKERS', 'abc', /WORKERS="abc".*integer from 1 to 64/],
    ['PORT', '70000', /PORT="70000".*integer from 0 to 65535/],
    ['HEAVY_MS', '0', /HEAVY_MS/],
    ['BBOX1_URL', 'ftp://x', /BBOX1_URL.*http/],
  ])('%s=%s is refused with a message naming it', (name, value, pattern) => {
    expect(() => loadConfig({ [name]: value })).toThrow(pattern);
  });

  test.each([
    ['WORKERS', 'abc'],
    ['PORT', '70000'],
  ])('`%s=%s node service` exits 1 with one line', async (name, value) => {
    const r = await runProgram('service', [], { env: { [name]: value } });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
  });
});
