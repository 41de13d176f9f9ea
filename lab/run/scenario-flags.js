'use strict';

// `npm run scenario`'s words and flags: the one table its command line is checked with, read
// by the command (lab/commands/scenario/plan.js), by a parent that gives a child run its
// options as a job (./job.js: a capacity level, a choice's autoscaler run, a study's run), and
// by the library.

const { ENDPOINTS, SCENARIOS } = require('../../artillery/scenarios');
const { allNames } = require('../topology/deployments');
const { DEPLOY_FLAGS, KIND_HELP } = require('../runtime/deploy-plan');
const { GENERATORS, GENERATOR_FLAGS, generatorHelp } = require('../generators');
const { parseThreshold } = require('../results/thresholds');
const { defineCommand, flag } = require('../terminal/flags');
const { CONTEXT } = require('../topology/context');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { parseHeader } = require('../scenario/request');
const { RATE } = require('../scenario/limits');
const { parsePhases } = require('../scenario/phase-list');
const { NODE_FLAG } = require('../runtime/node-flag');
const { SCRIPT_FLAGS, SCRIPT_HELP, INSECURE_FLAG } = require('../scenario/script-flags');
const { parseExpect } = require('../results/expect-status');
const { OUT_FLAGS, OUT_HELP } = require('../outputs/flags');
const { PROFILE_FLAGS, PROFILE_HELP } = require('../profile/flags');
const { ELASTIC_FLAGS, ELASTIC_HELP } = require('../elastic/flags');
const { parseEitherMethod } = require('../scenario/what');

const USAGE = `usage: npm run scenario -- <endpoint> <scenario> <deployment> [options]
       npm run scenario -- --script FILE <deployment> [options]    (your Artillery script)
       npm run scenario -- <endpoint> <scenario> --target URL      (a system already up)
  endpoints:   ${Object.keys(ENDPOINTS).join(', ')}, or a path of your service (/api/items)
  scenarios:   ${Object.keys(SCENARIOS).join(', ')}
  deployments: ${allNames().join(', ')}
options:
  --script FILE    an Artillery test script (YAML or JSON, as \`artillery run\` takes): its
                   phases (--scale, --rate-scale apply), flows and the rest of Artillery's HTTP
                   features; its target is the deployment's (docs/generators-and-scenarios.md)
  --insecure, -k   an https:// target's certificate is not checked (Artillery's -k); a --tls
                   deployment's own is always trusted through its CA
${SCRIPT_HELP}
  --app DIR        your own Node service in place of the lab's (see npm run deploy -- --help)
  --method M, --body TEXT|@FILE, --header 'Name: value' (repeatable)
                   the request each arrival sends (default GET; a body makes it POST, JSON
                   bodies go as application/json)
  --expect-status S  which statuses succeed (default: below 400), e.g. 200,404 or 2xx,404;
                   every other answer counts as failed, in errors and thresholds
${generatorHelp()}
  --warm-cache     asset: ask every object once through the entry before measuring (CPU caps
                   lifted meanwhile, memory limits kept), so a short run is not a cold-cache run
  --dashboard [PORT]  a live page of the run on 127.0.0.1:PORT (default 5665; --host to change
                   the address; LAB_DASHBOARD=1 too), its URL printed at the start
  --load-nodes N   fast/closed: run the generator as N tasks of the swarm (one per node while
                   it has that many), its schedule shared as between threads, results merged
                   exactly; needs --engine swarm (or --target with DOCKER_HOST on a swarm)
  --ensure EXPR    fail the run (exit 99) unless EXPR holds; repeatable: p99<500, errors<1%,
                   rate>=0.99, rps>=100 (metrics p50 p75 p90 p95 p99 max mean errors rate rps),
                   or one request's: p99{POST /api/cart}<300, errors{GET /api/items}<1%
  --scale F        multiply every duration (e.g. 0.1 for a smoke run)
  --rate-scale F   multiply every arrival rate
  --rate N         instead of the scenario's phases, one constant phase of N arrivals a second
  --phases LIST    instead of the scenario's phases, these: RATE/DURATION or FROM-TO/DURATION
                   (a ramp), comma-separated, like 10-20/60s,20-10/30s,10/90s
                   for --duration (default 60 s): a level held (npm run capacity holds them so)
  --duration D     endurance length (seconds, or 90s, 10m, 1h); with closed, any scenario's
  --target URL     run against a system that is already up (no deploy); its path, if it has
                   one, is the endpoint
  --engine E       where the deployment runs: local (default: processes + nginx), compose (containers)
                   or swarm (a stack on the swarm DOCKER_HOST names)
  --keep           leave the deployment up afterwards
  --print          print the Artillery script and exit
  --plan           check everything, print what the run would do and how long, and exit
  --json           print summary.json to stdout
  --heavy-ms MS    how long /heavy burns the CPU (default 5000, as in the course)
  --shutdown drain|abrupt  what the lab's service does on SIGTERM: drain (the default: answer
                   what is in flight, then exit) or exit at once, as a service with no handler
                   (local engine; see --rollout-at)
  --work-n N       work: how many rounds of 10,000 steps each request asks (default 100, 3-5 ms
                   of a core here; fewer make the servers' work lighter)
  --no-statsd      run without StatsD (and so without Graphite)
  --no-graphite    do not start or feed a Graphite
  --graphite H:P   feed the carbon at H:P instead of starting one
  --run-name NAME  the run's name under lab. in StatsD/Graphite (default: the results folder's);
                   with the compose stack's Grafana, use its LAB_RUN (default compose-<deployment>)
  --force          allow more than 8 service processes per core
${KIND_HELP}
  --method M       how the balancer picks a replica: round-robin (default), least_conn, hash
                   (consistent: on the URI at L7, the client's address at L4)
  --edges N        caching edges between the balancer and the replicas (the cdn deployment has 4)
  --cap NODE=CPU[/PERIOD][,MEMORY]  caps a node of the deployment, repeatable (see npm run deploy -- --help)
  --placement P    on a swarm of several nodes: spread, apart, manager-only (npm run deploy -- --help)
  --replicas N, --workers N, --key KEY, --port-base P, --host H, --state-dir DIR,
  --results-dir DIR, --run-dir DIR (a new or empty folder, or one the lab made)
${PROFILE_HELP}
${ELASTIC_HELP}
  --slo-p99 MS     a spike (a phase at twice the rate before it) is absorbed once p99 stays under
                   this with no failure for 5 s (default 500 ms): summary.spikes
${OUT_HELP}`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 3, name: 'word' },
  flags: {
    ...CONTEXT,
    ...DEPLOY_FLAGS,
    ...DASHBOARD_FLAGS,
    ...GENERATOR_FLAGS,
    ...OUT_FLAGS,
    ...PROFILE_FLAGS,
    ...ELASTIC_FLAGS,
    'slo-p99': flag.int(1, 600000),
    generator: flag.enum(Object.keys(GENERATORS), 'generator'),
    script: flag.path(),
    ...SCRIPT_FLAGS,
    'warm-cache': flag.bool(),
    ...INSECURE_FLAG,
    'load-nodes': flag.int(1, 64),
    ensure: flag.list(parseThreshold),
    scale: flag.factor(),
    'rate-scale': flag.factor(),
    rate: RATE,
    phases: {
      type: 'custom',
      parse: parsePhases,
      expected: 'phases like 10-20/60s,20/30s (RATE/DURATION or FROM-TO/DURATION)',
    },
    duration: flag.duration(),
    target: flag.url(),
    node: NODE_FLAG,
    keep: flag.bool(),
    'run-name': flag.pattern(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, - or _'),
    print: flag.bool(),
    plan: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    'heavy-ms': flag.int(1, 60000),
    shutdown: flag.enum(['drain', 'abrupt'], 'shutdown'),
    'work-n': flag.int(1, 100000),
    'no-statsd': flag.bool(),
    'no-graphite': flag.bool(),
    graphite: flag.pattern(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'HOST or HOST:PORT'),
    // Two things share the word: the request's HTTP method and the balancer's (their names
    // differ), each at most once: --method POST --method hash.
    method: flag.list(parseEitherMethod),
    body: flag.string(),
    header: flag.list(parseHeader),
    'expect-status': { type: 'custom', parse: parseExpect, expected: 'statuses or ranges, like 200,404 or 2xx' },
  },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const HELP = [USAGE, COMMAND.needsHelp()].filter(Boolean).join('\n');

module.exports = { USAGE, HELP, COMMAND };
