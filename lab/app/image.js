'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Your service (--app) in a container: an image of its own, from a build context the lab
// writes into its state folder (the app's files, its node_modules as installed here, and the
// lab's node:cluster primary), on the same base as the lab's images. Inside, the app is
// /app, it listens on PORT, and a multi-worker replica runs through the primary, as locally.
const INSIDE = '/app';
// (.cjs: a "type": "module" package would load a .js of the lab's as an ES module, and fail.)
const PRIMARY = '.lab-primary.cjs';
const { PRELOAD, IN_APP_IMAGE: PROBE } = require('../probe/env');
const { NODE_BASE } = require('../node-base');

const slug = (name) =>
  String(name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'app';

// The image's name: its app and the hash of its files, so a changed app is built again.
const appImage = (app) => `node-deploy-lab-app-${slug(app.name)}:${app.hash}`;

// A path of the app's folder as the container sees it under `root`.
const inside = (app, file, root = INSIDE) =>
  path.posix.join(root, path.relative(app.dir, file).split(path.sep).join('/'));

// The container's command and environment for a replica of `workers` workers, with the app
// at `root` and the lab's primary at `primary`.
function appContainer(app, { workers, port, root = INSIDE, primary = path.posix.join(INSIDE, PRIMARY) }) {
  const env = { PORT: String(port), ...(app.run.node?.env || {}) };
  // A shell line as the shell runs it (`exec LINE` ran only the first command of
  // `npm run build && node x.js`); the container's init stops the whole of it.
  if (!app.run.node) return { command: ['/bin/sh', '-c', app.run.shell], environment: env };
  const { entry, execArgv, args } = app.run.node;
  if (workers > 1) {
    return {
      command: ['node', primary, inside(app, entry, root), ...args],
      environment: { ...env, WORKERS: String(workers), LAB_EXEC_ARGV: JSON.stringify(execArgv) },
    };
  }
  return { command: ['node', ...execArgv, inside(app, entry, root), ...args], environment: env };
}

// Copies the app (without .git) into `dir`, afresh, with the primary, the runtime probe
// (probe/preload.js) and a Dockerfile.
function writeAppContext(app, dir, primarySource) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(app.dir, dir, {
    recursive: true,
    filter: (src) => path.basename(src) !== '.git',
    dereference: false,
  });
  fs.copyFileSync(primarySource, path.join(dir, PRIMARY));
  fs.copyFileSync(PRELOAD, path.join(dir, PROBE));
  fs.writeFileSync(
    path.join(dir, 'Dockerfile'),
    `# Written by the lab for your service ${app.name}: rewritten at every deploy, do not edit.
ARG BASE_IMAGE=${NODE_BASE}
FROM \${BASE_IMAGE}
WORKDIR ${INSIDE}
COPY . ${INSIDE}
# Not root, as the lab's own images.
USER 10001:10001
ENV NODE_ENV=production
`,
  );
  return dir;
}

module.exports = { appImage, appContainer, writeAppContext, INSIDE, PRIMARY, PROBE };
