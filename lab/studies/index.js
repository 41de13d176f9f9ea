'use strict';

// The studies `npm run study -- <name>` runs, as one table: each row is a module with its
// seed, its plan (data: the lab commands each run is) and what its report shows. Adding a
// study means adding a row.
const STUDIES = {
  course: require('./course'),
  cdn: require('./cdn'),
  'lb-modes': require('./lb-modes'),
  balancers: require('./balancers'),
  signaling: require('./signaling'),
  deployments: require('./deployments'),
  scaling: require('./scaling'),
  tls: require('./tls'),
  elasticity: require('./elasticity'),
};

module.exports = { STUDIES, DEFAULT_STUDY: 'course' };
