'use strict';

const { get, freePort, runProgram, startProgram, jsonOf } = require('../helper');

describe('node bbox', () => {
  test('--reveal prints the parameters in the documented shape without starting anything', async () => {
    const r = await runProgram('bbox', ['--reveal']);
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toEqual({
      bbox1: { port: 9090, kind: 'async', delayMs: 1100 },
      bbox2: { port: 9091, kind: 'sync', delayMs: 900, workers: 3 },
    });
  });

  test('--reveal --key gives that key’s parameters', async () => {
    const a = await runProgram('bbox', ['--reveal', '--key', 'k1']);
    const b = await runProgram('bbox', ['--reveal', '--key', 'k1']);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe((await runProgram('bbox', ['--reveal'])).stdout);
  });

  test('a bad flag exits 2 with usage; a bad value exits 2 naming the flag', async () => {
    const unknown = await runProgram('bbox', ['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/usage: node bbox/);
    const bad = await runProgram('bbox', ['--workers', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--workers="x"/);
  });

  test('--key --port starts both boxes on BASE and BASE+1', async () => {
    const base = await freePort();
    const box = await startProgram(
      'bbox',
      ['--key', 'k', '--port', String(base), '--bbox1-delay', '20', '--bbox2-delay', '20'],
      {
        ready: (err) => err.includes('bbox2 on'),
      },
    );
    try {
      for (const port of [base, base + 1]) {
        const r = await get(`http://127.0.0.1:${port}/`);
        expect([r.status, r.body]).toEqual([200, 'Hello, world!']);
      }
    } finally {
      await box.stop();
    }
  });
});
