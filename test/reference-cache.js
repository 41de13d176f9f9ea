'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// What plain `artillery run` did on a conformance fixture, kept between runs of the suite:
// the reference depends only on Artillery's version, Node's, the fixtures' files, the case
// (its name and flags) and the test's own server (its source), all in the key; so a run whose
// key was seen before reads the reference back and runs only the lab's side. A changed fixture
// (or server, or Artillery) is a new key, and its reference is run again. Only a reference that
// gave the verdict the test expects is kept: a run cut short by a busy machine is never reused.
// LAB_REFERENCE_CACHE sets the folder (default: ~/.cache/node-deploy-lab/references, which
// survives the fresh clones CI runs in); LAB_REFERENCE_CACHE=off runs every reference.
const DIR = process.env.LAB_REFERENCE_CACHE || path.join(os.homedir(), '.cache', 'node-deploy-lab', 'references');
const OFF = DIR === 'off';

// The files of a folder, each with its content, sorted: what a fixture is made of.
function folderFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort()
    .map((name) => [name, fs.readFileSync(path.join(dir, name))]);
}

// The key of a reference: { artillery (its version), node, name, args, files ([name,
// content]), server (the recording server's source) } -> a hex digest.
function referenceKey({ artillery, node = process.version, name, args = [], files, server = '' }) {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ artillery, node, name, args, server }));
  for (const [f, content] of files) {
    h.update(`\0${f}\0${content.length}\0`);
    h.update(content);
  }
  return h.digest('hex');
}

// The reference for `key`: read back when kept, else `run()`'s answer, kept when `keep(it)`.
// -> { ...reference, cached: true | false }.
async function cachedReference(key, run, keep = () => true) {
  const file = path.join(DIR, `${key}.json`);
  if (!OFF) {
    try {
      return { ...JSON.parse(fs.readFileSync(file, 'utf8')), cached: true };
    } catch {
      // not kept yet (or unreadable: run it again)
    }
  }
  const ref = await run();
  if (!OFF && keep(ref)) {
    fs.mkdirSync(DIR, { recursive: true });
    // (Written whole, then renamed: a reader never sees half of one.)
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(ref));
    fs.renameSync(tmp, file);
  }
  return { ...ref, cached: false };
}

// Artillery's version, from the lock file's install.
const artilleryVersion = () => require('artillery/package.json').version;

module.exports = { referenceKey, cachedReference, folderFiles, artilleryVersion, DIR };
