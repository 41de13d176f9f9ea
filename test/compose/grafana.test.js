'use strict';

const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');
const { ROOT } = require('../helper');

// Grafana cannot run on this machine: its provisioning and dashboard are checked as data,
// against the metric names the lab's StatsD actually writes.
const dir = path.join(ROOT, 'compose', 'monitoring', 'grafana');

describe('Grafana provisioning', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(dir, 'dashboards', 'lab-run.json'), 'utf8'));

  test('a Graphite datasource and a dashboard provider are provisioned', () => {
    const ds = yaml.load(fs.readFileSync(path.join(dir, 'provisioning', 'datasources', 'graphite.yml'), 'utf8'));
    expect(ds.datasources[0]).toMatchObject({ type: 'graphite', uid: 'lab-graphite', isDefault: true });
    const prov = yaml.load(fs.readFileSync(path.join(dir, 'provisioning', 'dashboards', 'lab.yml'), 'utf8'));
    expect(prov.providers[0].options.path).toBe('/var/lib/grafana/dashboards');
  });

  test('the dashboard has the four panels of the course, with run and node variables', () => {
    const titles = dashboard.panels.map((p) => p.title);
    for (const t of [
      /Scenarios launched/,
      /Requests state/,
      /client side/,
      /server side/,
      /CPU per node/,
      /Memory per node/,
    ]) {
      expect(titles.some((x) => t.test(x))).toBe(true);
    }
    const vars = dashboard.templating.list.map((v) => v.name);
    expect(vars).toEqual(expect.arrayContaining(['run', 'node']));
    for (const p of dashboard.panels) {
      expect(p.datasource.uid).toBe('lab-graphite');
      // The run's panels, and the containers' ones that cAdvisor feeds in the compose stack.
      for (const t of p.targets) expect(t.target).toMatch(/lab\.\$run\.|gauges\.cadvisor\.\*\./);
    }
  });

  test('percentile panels say that Graphite rollups would average them', () => {
    for (const p of dashboard.panels.filter((x) => /Response time/.test(x.title))) {
      expect(p.description).toMatch(/average of percentiles is not a percentile/);
    }
  });

  test("the dashboard's metric paths are the ones the lab's StatsD sends to Graphite", () => {
    // Names as the runner and the plugin build them (legacyNamespace off, no global prefix).
    const targets = dashboard.panels.flatMap((p) => p.targets.map((t) => t.target)).join(' ');
    expect(targets).toMatch(/counters\.lab\.\$run\.artillery\.vusers_created\.count/);
    expect(targets).toMatch(/gauges\.lab\.\$run\.artillery\.response_time/);
    expect(targets).toMatch(/timers\.lab\.\$run\.service\.\$endpoint\.response_time/);
    expect(targets).toMatch(/gauges\.lab\.\$run\.node\.\$node\.cpu_pct/);
  });

  test("the event-loop panels read the names the runtime probe's collector sends", () => {
    const { statsdLines } = require('../../lab/probe/collector');
    const sent = statsdLines('lab.r1', {
      node: 'replica-1',
      pid: 3,
      role: 'worker',
      w: 1,
      elu: [1, 1],
      d: [1, 1, 1, 1, {}],
      gc: {},
      heap: [1, 1],
    }).map((l) => `gauges.${l.split(':')[0]}`);
    const loops = dashboard.panels.flatMap((p) => p.targets.map((t) => t.target)).filter((t) => /\.loop\./.test(t));
    expect(loops).toHaveLength(4);
    for (const t of loops) {
      const metric = /(gauges\.[^,)]+)/.exec(t)[1];
      const re = new RegExp(
        `^${metric.replace(/\./g, '\\.').replace('$run', 'r1').replace('$node', '[^.]+').replace('*', '[^.]+')}$`,
      );
      expect(sent.some((m) => re.test(m))).toBe(true);
    }
  });
});
