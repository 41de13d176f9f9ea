'use strict';

const { get } = require('../http');

// Warms the caches in front of an endpoint of many objects (artillery/scenarios.js's
// `objects`): every object asked once through the deployment's entry, so a short measured
// run is not a cold-cache run. The least popular first, the most popular last: a cache short
// of room evicts the least recently used, and keeps what the run will ask most.
// Resolves { objects, ok, failed, seconds }.
async function warmCache({ target, path, objects, concurrency = 4, timeoutMs = 10000, onProgress = () => {} }) {
  const started = Date.now();
  let next = objects.count;
  let ok = 0;
  let failed = 0;
  const worker = async () => {
    while (next >= 1) {
      const rank = next--;
      try {
        const r = await get(`${target}${path}obj-${rank}?bytes=${objects.bytes}`, { timeoutMs });
        if (r.status === 200) ok += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
      if ((ok + failed) % 250 === 0) onProgress(ok + failed, objects.count);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { objects: objects.count, ok, failed, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

module.exports = { warmCache };
