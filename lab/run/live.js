'use strict';

const { liveFeed } = require('../dashboard/live');
const { liveBody } = require('../dashboard/live-body');
const loadRun = require('../report/load-run');
const { own } = require('../ownership/cleanups');
const { summarizeRun } = require('./summary');

// The live page of a scenario run (--dashboard): the report's own body over the run so far,
// its summary made the same way as the final one (not written), every second a tab is open.
function feedLive(run, dashboard) {
  const { p } = run;
  const totalS = run.genPlan.phases.reduce((a, ph) => a + ph.duration, 0);
  const began = Date.now();
  const feed = liveFeed(dashboard, {
    render: ({ intervalMs }) => {
      const summary = summarizeRun(run, { status: 'running', write: false });
      // Since the first phase began (the generator's own start), as the report's axis.
      const firstPhase = Date.parse(summary.phases[0]?.startedAt);
      const elapsedS = Math.max(0, (Date.now() - (Number.isFinite(firstPhase) ? firstPhase : began)) / 1000);
      return {
        html: String(
          liveBody(loadRun.runWith(run.dir, summary), {
            elapsedS,
            totalS,
            phases: run.genPlan.phases,
            closed: p.closed || p.signal,
            intervalMs,
            dashboardCpu: feed.stats().cpuPctOfCore ?? 0,
          }),
        ),
        status: `running: ${Math.floor(elapsedS)} s of ${totalS} s`,
      };
    },
  });
  feed.start();
  own(() => feed.stop({ html: '', status: 'the run was interrupted; its partial report is in the results folder' }));
  return feed;
}

module.exports = { feedLive };
