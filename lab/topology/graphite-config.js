'use strict';

// Graphite's storage config, the same for the run's own carbon-cache (lab/monitoring/carbon.js)
// and the compose stack's graphite (./compose-write.js).
// Storage schemas: the finest retention equals StatsD's 1 s flush, or carbon would keep one
// value of several per slot. Aggregation to coarser slots: counts add up, upper bounds
// take the max, lower bounds the min; the rest (means, percentiles, gauges) is averaged,
// which is why the dashboards say so where it matters.
const SCHEMAS = `[lab]
pattern = .*
retentions = 1s:6h,10s:7d
`;
const AGGREGATION = `[counts]
pattern = \\.(count|sum)$|\\.status\\.|\\.errors?\\.|\\.codes\\.
xFilesFactor = 0
aggregationMethod = sum

[upper]
pattern = \\.upper(_\\d+)?$|\\.max$
xFilesFactor = 0
aggregationMethod = max

[lower]
pattern = \\.lower(_\\d+)?$|\\.min$
xFilesFactor = 0
aggregationMethod = min

[default]
pattern = .*
xFilesFactor = 0.3
aggregationMethod = average
`;

module.exports = { SCHEMAS, AGGREGATION };
