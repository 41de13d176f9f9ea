'use strict';

const { burnSteps } = require('../../service/heavy');

// /heavy's burn lasts `ms` from its first step, however long the request waited for the CPU
// before it (service/cpu-gate.js queues CPU jobs): its clock once started when the steps were
// made, and a request that waited 30 ms for a 20 ms burn burned 0.04 ms.
test('a burn made, then left waiting, still burns its whole time once it starts', async () => {
  const step = burnSteps(20);
  await new Promise((r) => setTimeout(r, 30));
  const t0 = performance.now();
  while (!step());
  // (A lower bound only: a busy machine can only make it longer. A burn timed from when it was
  // made ends at its first step, a spin long. How many steps it took is no check: beside a CI
  // run the machine once held this process through all 20 ms of the first.)
  expect(performance.now() - t0).toBeGreaterThanOrEqual(20);
});
