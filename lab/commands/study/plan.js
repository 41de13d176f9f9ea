'use strict';

const { STUDIES, DEFAULT_STUDY } = require('../../studies');
const { BALANCERS } = require('../../kinds');
const { COURSE } = require('../../topology/deployments');
const { SCENARIOS } = require('../../../artillery/scenarios');
const { MATRIX } = require('../../studies/course-plan');
const { pick } = require('../../names');
const { defineCommand, flag } = require('../../terminal/flags');
const { RATE } = require('../../scenario/limits');
const { CONTEXT } = require('../../topology/context');
const { labError } = require('../../../common/errors');
const { clock } = require('../../terminal/progress');
const table = require('../../terminal/table');
const { isDone } = require('../../studies/resume');
const { DASHBOARD_FLAGS } = require('../../dashboard/flag');
const { APP_FLAGS, appOf } = require('../../app/flags');
const { OUT_FLAGS } = require('../../outputs/flags');
const { parseSlo } = require('../../capacity/slo');
const { PROFILE_FLAGS } = require('../../profile/flags');
const { TLS_FLAGS } = require('../../tls/flags');
const { ELASTIC_FLAGS } = require('../../elastic/flags');
const { SCRIPT_RUN_FLAGS } = require('../../scenario/script-flags');

const BALANCER_NAMES = BALANCERS.map((k) => k.name);
// (Each study's options from the flags: ../../studies/options.js.)
const { options } = require('../../studies/options');

// The study asked, from the command line: its flags, its options, its runs, --plan and
// --list (lab/commands/study/index.js runs them).
const USAGE = `usage: npm run study -- [<study>] [options]
Runs a study end to end (each of its runs one lab command) and writes study.html and
study.md beside its runs, with the seed's own figures beside ours. Finished runs are kept and
skipped when the study is started again.
  studies: ${Object.keys(STUDIES).join(', ')} (default ${DEFAULT_STUDY}; --list says what each is)
  --list                      list the studies and exit
  --plan                      print the runs with their expected durations, and exit
  --scale F                   shrink or stretch the study (a quick one: --scale 0.1)
  --dir DIR                   the study's folder (default results/study for course,
                              results/study-<name> for the others)
  --fresh                     start over: forget the finished runs
  --dashboard [PORT]          a live page of the study on 127.0.0.1:PORT (default 5665): the
                              run going, the runs done and their headline figures
  --runs a,b                  only the runs whose names start with these (see --plan)
  --out otlp=URL, --out-interval D   each run's metrics to an OpenTelemetry collector
  --junit FILE                a testsuite per scenario run, a testcase per threshold; with
                              $GITHUB_STEP_SUMMARY set, the runs done are appended there
                              (docs/pipelines.md)
  --engine local|swarm        balancers: where the node and nginx rows run (the mesh always
                              needs a swarm)
  --repetitions N             cdn, lb-modes, balancers: how many times each run is made,
                              interleaved (default 3); the verdicts that compare nodes, kinds
                              or server counts say "unstable" when the runs disagree
  --balancers a,b             lb-modes, balancers: the balancer kinds to compare (default the
                              seed's: none,nginx-l4,nginx and node,nginx,mesh; any of
                              ${BALANCER_NAMES.join(', ')})
deployments and scaling (your service; need --app):
  --app DIR, --app-cmd CMD, --health PATH   your service (docs/your-service.md)
  --with postgres,redis, --app-setup CMD, --db-max-connections N   its stores, as for deploy
  --endpoints /a,/b           its paths (default /; scaling: one); or --script FILE, your
                              Artillery script
  -e, -c, -p, -v, --overrides, --dotenv, --scenario-name, -k   Artillery's run flags for
                              --script, passed on to every run (npm run scenario -- --help)
  --slo EXPR                  the capacity's SLO, repeatable (default p99<200 and errors<1%)
  --tls, --http2              the entry of every run terminates TLS (HTTP/2), as for deploy
  --profile                   every run's Node processes profiled, its stores' statements
                              counted; the report puts the deployments' side by side
                              (docs/profiles.md)
  --fresh-per-level           the capacity searches redeploy before every level (a fresh
                              database with --with): for a service whose state grows under
                              load, which the study suggests when a search finds it did not
                              recover from an overload
  --balancers a,b             deployments: each deployment behind each of these kinds too;
                              scaling: the kinds swept (default nginx,nginx-l4,haproxy,node)
elasticity (the lab's service, or yours with --app and --endpoints /path):
  --autoscale MIN-MAX         the replicas held at MIN, at MAX, and autoscaled between them
                              (default 1-4); --autoscale-metric, --autoscale-target as for
                              scenario; --slo-p99 MS, the p99 a spike is absorbed under (500)
course (and deployments):
  --rate-scale F              multiply every arrival rate
  --duration D                endurance length
  --endpoints a,b             only these (${Object.keys(MATRIX).join(', ')})
  --scenarios a,b             only these (${Object.keys(SCENARIOS).join(', ')})
  --deployments a,b           only these (${COURSE.map((p) => p.name).join(', ')})
  --generator artillery|fast  every run's load generator (default artillery, the course's tool)`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 0, max: 1, name: 'study' },
  flags: {
    ...CONTEXT,
    list: flag.bool(),
    plan: flag.bool(),
    scale: flag.factor(),
    dir: flag.path(),
    fresh: flag.bool(),
    runs: flag.string(),
    engine: flag.enum(['local', 'swarm'], 'engine'),
    balancers: flag.string(),
    repetitions: flag.int(1, 10),
    'rate-scale': flag.factor(),
    duration: flag.duration(),
    endpoints: flag.string(),
    scenarios: flag.string(),
    deployments: flag.string(),
    generator: flag.enum(['artillery', 'fast'], 'generator'),
    ...DASHBOARD_FLAGS,
    ...APP_FLAGS,
    script: flag.path(),
    // Artillery's run flags for the script (and -k), passed on to every run of it.
    ...SCRIPT_RUN_FLAGS,
    slo: flag.list((v) => parseSlo(v).text),
    'fresh-per-level': flag.bool(),
    // The highest rate a study's capacity searches try (capacity --max-rate): a ceiling its
    // deployments are said to hold "at least".
    'max-rate': RATE,
    tls: TLS_FLAGS.tls,
    http2: TLS_FLAGS.http2,
    autoscale: ELASTIC_FLAGS.autoscale,
    'autoscale-metric': ELASTIC_FLAGS['autoscale-metric'],
    'autoscale-target': ELASTIC_FLAGS['autoscale-target'],
    'slo-p99': flag.int(1, 600000),
    profile: PROFILE_FLAGS.profile,
    'profile-interval': PROFILE_FLAGS['profile-interval'],
    ...OUT_FLAGS,
  },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const HELP = [USAGE, COMMAND.needsHelp()].filter(Boolean).join('\n');

function listing() {
  const rows = Object.values(STUDIES).map((s) => {
    const full = s.plan(options(s, {}));
    const quick = s.plan(options(s, { scale: 0.1 }));
    const sum = (p) => p.reduce((a, r) => a + r.expectedS, 0);
    return {
      name: s.name,
      seed: s.seed,
      runs: full.length,
      full: clock(sum(full)),
      quick: clock(sum(quick)),
      what: s.what,
    };
  });
  return `${table(rows, [
    ['name', 'study'],
    ['seed', 'seed'],
    ['runs', 'runs'],
    ['full', 'full'],
    ['quick', '--scale 0.1'],
    ['what', 'what'],
  ])}\n\nnpm run study -- <study> [--scale F] (--plan lists its runs)`;
}

// The study asked, its options from the flags given, and its runs after --runs: refused here,
// before anything starts, when they cannot run.
function studyPlan(values, positionals) {
  const name = pick('study', positionals[0] ?? DEFAULT_STUDY, Object.keys(STUDIES));
  const study = STUDIES[name];
  const given = Object.fromEntries(
    Object.entries(values).filter(
      ([k, v]) =>
        // (A switch not given reads false: not given.)
        v !== undefined &&
        v !== false &&
        !(Array.isArray(v) && !v.length) &&
        !(k in CONTEXT) &&
        k !== 'json' &&
        !(k in DASHBOARD_FLAGS),
    ),
  );
  const o = options(study, given);
  for (const need of study.needs || []) {
    if (given[need] === undefined)
      throw labError('LAB_ERR_MISSING_ARG', `--${need}: the ${name} study needs it (npm run study -- --help)`);
  }
  // Your service is checked before anything starts (its folder, how it starts).
  if (o.app) appOf(given);
  if (o.script && o.paths)
    throw labError('LAB_ERR_FLAGS_EXCLUDE', 'script', 'endpoints', '--script brings its own requests');
  let plan = study.plan(o);
  if (values.runs !== undefined) {
    const prefixes = values.runs.split(',').map((x) => x.trim());
    for (const pre of prefixes) {
      if (!pre || !plan.some((r) => r.id.startsWith(pre)))
        throw labError(
          'LAB_ERR_FLAG_VALUE',
          'runs',
          values.runs,
          `no run of ${name} starts with "${pre}" (--plan lists them)`,
        );
    }
    plan = plan.filter((r) => prefixes.some((pre) => r.id.startsWith(pre)));
  }
  if (!plan.length)
    throw labError('LAB_ERR_FLAG_VALUE', 'runs', values.runs ?? null, 'the filters leave no run in the study');
  if (o.durationS !== undefined && !plan.some((r) => r.scenario && SCENARIOS[r.scenario].usesDuration)) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'duration',
      null,
      "it sets the endurance runs' length, and the filters leave none",
    );
  }
  return { name, study, o, plan };
}

// --plan: the runs, each with its expected time and whether it is done, and the total.
function planText(study, plan, { runDir, total, scale, assumed }) {
  const rows = plan.map((r, i) => ({
    n: i + 1,
    run: r.id,
    what: r.what,
    expected: clock(r.expectedS),
    done: isDone(runDir(r), r) ? 'done' : '',
  }));
  return `${table(rows, [
    ['n', '#'],
    ['run', 'run'],
    ['what', 'what'],
    ['expected', 'expected'],
    ['done', ''],
  ])}\n\n${study.title}: ${plan.length} runs, about ${clock(total)} in all${scale !== 1 ? ` at scale ${scale}` : ''}${assumed ? `\n${assumed}` : ''}`;
}

// What a study's folder records of its settings (study.json), and each run of what it was
// made with: only runs of the same settings are reused.
function settingsOf(name, o) {
  return {
    study: name,
    scale: o.scale,
    rateScale: o.rateScale,
    durationS: o.durationS ?? null,
    generator: o.generator ?? null,
    engine: o.engine ?? null,
    balancers: o.balancers ? o.balancers.join(',') : null,
    repetitions: o.repetitions ?? null,
    app: o.app ?? null,
    script: o.script ?? null,
    // (Only when given: a folder of an earlier study, made before the flags, stays its own.)
    ...(o.scriptArgs?.length ? { scriptFlags: o.scriptArgs.join(' ') } : {}),
    slos: o.slos ? o.slos.join(' ') : null,
  };
}

module.exports = { USAGE, HELP, COMMAND, studyPlan, planText, settingsOf, listing };
