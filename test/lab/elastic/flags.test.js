'use strict';

const { elasticOf, assertElastic, parsePolicies } = require('../../../lab/elastic/flags');
const { resolveDeployment } = require('../../../lab/topology/deployments');

const codeOf = (fn) => {
  try {
    fn();
  } catch (err) {
    return `${err.code}: ${err.message}`;
  }
  return 'no error';
};

describe('--autoscale and --rollout-at, checked before anything starts', () => {
  test("none asked: null; --autoscale alone: Kubernetes' defaults on cpu at 50%", () => {
    expect(elasticOf({})).toBeNull();
    const e = elasticOf({ autoscale: '1-4' });
    expect(e.autoscale).toMatchObject({ min: 1, max: 4, metric: 'cpu', target: 50, graceS: 30, preStopS: 0 });
    expect(e.autoscale.rule).toMatchObject({ syncS: 15, tolerance: 0.1, upWindowS: 0, downWindowS: 300 });
    expect(e.rollout).toBeNull();
  });

  test('--scale shortens every time of the rule; the flags set each', () => {
    const e = elasticOf(
      {
        autoscale: '2-6',
        'autoscale-metric': 'rps',
        'autoscale-target': 'rps=40',
        'autoscale-down-window': 0,
        'autoscale-up-policy': parsePolicies('2/10s'),
      },
      { scale: 0.5 },
    );
    expect(e.autoscale).toMatchObject({ metric: 'rps', target: 40, unit: '/s' });
    expect(e.autoscale.rule).toMatchObject({
      syncS: 7.5,
      downWindowS: 0,
      upPolicies: [{ type: 'Pods', value: 2, periodS: 5 }],
    });
  });

  test('every bad combination is one usage line', () => {
    expect(codeOf(() => elasticOf({ autoscale: '4-2' }))).toMatch(
      /LAB_ERR_FLAG_VALUE: --autoscale 4-2: expected 1 <= MIN <= MAX <= 32/,
    );
    expect(codeOf(() => elasticOf({ autoscale: '1-4', 'autoscale-metric': 'rps' }))).toMatch(
      /rps has no default target: give --autoscale-target rps=N/,
    );
    expect(codeOf(() => elasticOf({ autoscale: '1-4', 'autoscale-target': 'rps=5' }))).toMatch(
      /is for rps, and the metric is cpu/,
    );
    expect(codeOf(() => elasticOf({ autoscale: '1-4', 'autoscale-metric': 'loop' }, { probe: false }))).toMatch(
      /reads the runtime probe: drop --no-probe/,
    );
    expect(codeOf(() => elasticOf({ 'rollout-at': 70 }, { durationS: 60 }))).toMatch(/the load lasts 60 s/);
    expect(codeOf(() => elasticOf({ 'rollout-at': 5, 'app-next': '/x' }))).toMatch(
      /--app-next needs --app: it is the new version of --app/,
    );
    expect(codeOf(() => elasticOf({ 'rollout-at': 5, 'max-surge': '0', 'max-unavailable': '0' }))).toMatch(/no room/);
    expect(codeOf(() => elasticOf({ autoscale: '1-2', 'rollout-at': 5 }))).toMatch(
      /one change of the replicas at a time/,
    );
    expect(codeOf(() => elasticOf({ autoscale: '1-2' }, { runtime: 'swarm' }))).toMatch(/--engine local or compose/);
  });

  // The tuning flags alone: refused by the command's flag schema, naming what they need.
  test('a flag that tunes an autoscaler or a rollout, alone, is refused by the command (exit 2), naming what it needs', () => {
    const scenario = require('../../../lab/commands/scenario');
    const refused = (...flags) => codeOf(() => scenario.plan(['ping', 'load', 'replicated', ...flags]));
    expect(refused('--autoscale-metric', 'loop')).toBe(
      'LAB_ERR_FLAG_NEEDS: --autoscale-metric needs --autoscale: it tunes the autoscaler',
    );
    expect(refused('--max-surge', '1')).toBe('LAB_ERR_FLAG_NEEDS: --max-surge needs --rollout-at: it tunes a rollout');
    for (const f of [
      ['--grace', '5'],
      ['--pre-stop', '5s'],
    ])
      expect(refused(...f)).toMatch(
        new RegExp(
          `^LAB_ERR_FLAG_NEEDS: ${f[0]} needs --rollout-at or --autoscale: it is how a replica the lab removes is stopped`,
        ),
      );
    expect(refused('--pre-stop', '5s', '--rollout-at', '5')).toBe('no error');
  });

  test('a deployment whose replicas cannot change is refused with its reason (exit 2)', () => {
    const d = (name, o = {}) => resolveDeployment(name, o);
    expect(codeOf(() => assertElastic(d('replicated'), 'local'))).toBe('no error');
    expect(codeOf(() => assertElastic(d('replicated', { balancer: 'none' }), 'local'))).toMatch(
      /LAB_ERR_ELASTIC: .*no balancer/,
    );
    expect(codeOf(() => assertElastic(d('cdn'), 'local'))).toMatch(/caching edges/);
    expect(codeOf(() => assertElastic(d('replicated', { balancer: 'haproxy' }), 'compose'))).toMatch(
      /use --balancer nginx/,
    );
    expect(codeOf(() => assertElastic(d('replicated', { balancer: 'caddy' }), 'local'))).toBe('no error');
  });
});
