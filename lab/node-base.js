'use strict';

const { dependencies } = require('../package.json');

// The Node the lab runs on, as the lock file pins it (the `node` package), and the container
// base image of that Node: the lab's images and a user's app image are built on it, so a
// container runs the same Node as a local process (issue 86: they once ran Node 20, end of
// life, while the local processes ran 24).
const NODE = dependencies.node;
const NODE_BASE = `node:${NODE}-bookworm-slim`;

module.exports = { NODE, NODE_BASE };
