'use strict';

const path = require('node:path');
const Module = require('node:module');

// A script's processor (config.processor) as Artillery loads one, in the thread that runs its
// functions: required (CommonJS); a TypeScript one (.ts) compiled first, as Artillery compiles
// it (esbuild, bundled for Node as CommonJS, `@playwright/test` and config.bundling.external
// left out), here in memory rather than into a dist/ folder beside your file; an ES module
// (.mjs) is imported instead (../fast-worker.js, which only an async step can do).
// None: an empty one (a function step then counts Artillery's "Undefined function" error).
function loadProcessor(file, { external = [] } = {}) {
  if (!file) return {};
  if (path.extname(file) !== '.ts') return require(file);
  const { buildSync } = require('esbuild-wasm');
  const out = buildSync({
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    external: ['@playwright/test', ...external],
  });
  // (Compiled as a module of the processor's own folder: what it requires resolves from there.)
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  m._compile(out.outputFiles[0].text, file);
  return m.exports;
}

module.exports = { loadProcessor };
