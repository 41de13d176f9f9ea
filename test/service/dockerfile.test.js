'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, requireClosure: closure } = require('../helper');

// The service's image runs the service, and on a swarm the generator's shards too
// (--load-nodes): every file either one requires must be copied into it, and every package
// installed. Read from the Dockerfile, so a new require that the image lacks fails here and
// not on somebody's swarm.
const dockerfile = fs.readFileSync(path.join(ROOT, 'service', 'Dockerfile'), 'utf8');
const copied = [...dockerfile.matchAll(/^COPY\s+(.+)\s+\S+$/gm)].flatMap((m) => m[1].trim().split(/\s+/));
// (The list runs over continued lines, up to the install.)
const packages = /RUN node scripts\/image-deps\.js\s+([^&]+)/
  .exec(dockerfile)[1]
  .split(/[\s\\]+/)
  .filter(Boolean);

const isCopied = (rel) => copied.some((c) => (c.endsWith('/') ? rel.startsWith(c) : rel === c));

test.each(['service/index.js', 'lab/generators/remote-shard.js'])('the image holds all that %s requires', (entry) => {
  const { files, mods } = closure(entry);
  expect(files.filter((f) => !isCopied(f))).toEqual([]);
  expect(mods.filter((m) => !packages.includes(m))).toEqual([]);
});

test('the check sees a missing file', () => {
  expect(isCopied('lab/measure/merge.js')).toBe(true);
  expect(isCopied('lab/commands/scenario/index.js')).toBe(false);
});
