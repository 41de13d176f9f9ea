'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadConfig } = require('../../bbox/config');
const parseProperties = require('../../bbox/properties');
const { deriveParams } = require('../../bbox/params');

const made = [];
function tmpProps(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bbox-'));
  made.push(dir);
  const file = path.join(dir, 'config.properties');
  fs.writeFileSync(file, text);
  return file;
}
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('bbox configuration', () => {
  test('properties: comments, both separators, blank values', () => {
    expect(parseProperties('# c\n! c\nserver.basePort = 9100\ngroup.key: abc\nempty =\n')).toEqual({
      'server.basePort': '9100',
      'group.key': 'abc',
      empty: '',
    });
  });

  test('reads server.basePort and group.key from the properties file like the original', () => {
    const file = tmpProps('server.basePort=9200\ngroup.key=g5\n');
    const c = loadConfig({ flags: { '--config': file }, env: {} });
    const d = deriveParams('g5');
    expect(c.services.bbox1).toEqual({ port: 9200, ...d.bbox1 });
    expect(c.services.bbox2).toEqual({ port: 9201, ...d.bbox2 });
  });

  test('env overrides the file and flags override env', () => {
    const file = tmpProps('server.basePort=9200\ngroup.key=g5\n');
    const env = { BBOX_CONFIG: file, BBOX_BASE_PORT: '9300', BBOX_KEY: '' };
    expect(loadConfig({ env }).services.bbox1.port).toBe(9300);
    expect(loadConfig({ env, flags: { '--port': '9400' } }).services.bbox2.port).toBe(9401);
    // An empty BBOX_KEY counts as unset, so the file's key stands.
    expect(loadConfig({ env }).key).toBe('g5');
    expect(loadConfig({ env, flags: { '--key': 'other' } }).key).toBe('other');
  });

  test('explicit parameter overrides replace what the key derived', () => {
    const c = loadConfig({
      env: {},
      flags: { '--sync': 'bbox1', '--workers': '4', '--bbox1-delay': '50', '--bbox2-delay': '70' },
    });
    expect(c.services).toEqual({
      bbox1: { port: 9090, kind: 'sync', delayMs: 50, workers: 4 },
      bbox2: { port: 9091, kind: 'async', delayMs: 70 },
    });
  });

  test('bad values name the setting as the user spelled it', () => {
    expect(() => loadConfig({ env: { BBOX_WORKERS: '0' } })).toThrow(/BBOX_WORKERS="0"/);
    expect(() => loadConfig({ env: {}, flags: { '--sync': 'bbox3' } })).toThrow(/--sync.*bbox1, bbox2/);
    const file = tmpProps('server.basePort=http\n');
    expect(() => loadConfig({ env: { BBOX_CONFIG: file } })).toThrow(/server\.basePort="http"/);
    expect(() => loadConfig({ env: { BBOX_CONFIG: '/nonexistent/x.properties' } })).toThrow(/config file/);
  });
});
