'use strict';

// --node as a flag, for the commands that deploy the service under test on other Node versions
// (capacity, scenario): its spec, its versions resolved once when the command line is read,
// and the words the plan says them with.

const { parseNodeSpecs, resolveNode, nodeText, MAX_VERSIONS } = require('./node-versions');

const NODE_FLAG = {
  type: 'custom',
  parse: parseNodeSpecs,
  expected: `1 to ${MAX_VERSIONS} Node versions, majors or exact versions the npm registry serves, like 22,24 or 22.23.5`,
};

// -> [{ spec, version, binary, own, cached }] or null without --node.
const nodesOf = (values) => (values.node ? values.node.map((spec) => resolveNode(spec)) : null);

const nodesText = (nodes) => nodes.map(nodeText).join(', ');

module.exports = { NODE_FLAG, nodesOf, nodesText };
