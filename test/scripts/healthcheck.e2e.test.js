'use strict';

const { listen, freePort, runProgram } = require('../helper');

describe('scripts/healthcheck.js (the images’ HEALTHCHECK)', () => {
  test('exits 0 when every URL answers 2xx, 1 when one does not or nothing listens', async () => {
    const ok = await listen((req, res) => res.end('ok'));
    const bad = await listen((req, res) => {
      res.statusCode = 503;
      res.end();
    });
    try {
      const dead = await freePort();
      expect((await runProgram('scripts/healthcheck.js', [ok.url, ok.url])).code).toBe(0);
      expect((await runProgram('scripts/healthcheck.js', [ok.url, bad.url])).code).toBe(1);
      expect((await runProgram('scripts/healthcheck.js', [`http://127.0.0.1:${dead}/`])).code).toBe(1);
      expect((await runProgram('scripts/healthcheck.js', [])).code).toBe(2);
    } finally {
      await ok.close();
      await bad.close();
    }
  });
});
