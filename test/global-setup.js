'use strict';

const { setup } = require('./global-tmp');
const { prepareForRun } = require('./package-project');

// The run's scratch root first; then, for the end-to-end set, what a file needs done before
// the others start (./package-project.js says why).
module.exports = async (globalConfig, projectConfig) => {
  await setup();
  if (process.env.LAB_TESTS !== 'unit') await prepareForRun(globalConfig, projectConfig);
};
