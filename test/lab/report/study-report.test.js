'use strict';

const { answeredText } = require('../../../lab/report/study-report');

// A study's observations count requests against requests: "single completed 300 of 100
// requests" once compared the answers with the scenarios launched, each a flow of three.
test('requests answered of those sent, and the scenarios that sent them when a scenario is a flow', () => {
  expect(answeredText({ requestsCompleted: 300, requestsSent: 300, scenariosLaunched: 100 })).toBe(
    'completed 300 of 300 requests (from 100 scenarios)',
  );
  expect(answeredText({ requestsCompleted: 61, requestsSent: 450, scenariosLaunched: 450 })).toBe(
    'completed 61 of 450 requests',
  );
});
