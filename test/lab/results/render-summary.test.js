'use strict';

const renderSummary = require('../../../lab/results/render-summary');
const table = require('../../../lab/terminal/table');

describe('summary text and tables', () => {
  test('the summary reads like the course report, with the generator verdict and results path', () => {
    const text = renderSummary({
      endpoint: 'heavy',
      scenario: 'load',
      deployment: { name: 'single' },
      status: 'completed',
      durationS: 120,
      scenariosLaunched: 1215,
      scenariosCompleted: 2,
      requestsCompleted: 2,
      meanResponseRate: 0.1,
      responseTimeMs: { min: 5043, median: 7372.5, p95: 9702, p99: 9702, max: 9702 },
      codes: { 200: 2 },
      errors: { ETIMEDOUT: 1213 },
      phases: [
        { name: 'ramp 0 to 20/s', durationS: 120, targetRate: { from: 0, to: 20 }, achievedRate: 10.1, ratio: 1.01 },
      ],
      generator: {
        cpuPctMean: 10,
        cpuPctMax: 20,
        rssMiBStart: 100,
        rssMiBEnd: 120,
        rssMiBMax: 130,
        rssGrowthMiBPerMin: null,
      },
      saturation: { verdict: 'the load generator kept up with every phase' },
      resultsDir: '/r/x',
    });
    expect(text).toMatch(/^heavy load on single: completed after 120 s/);
    expect(text).toMatch(/Scenarios launched: {2}1215/);
    expect(text).toMatch(/median: 7372\.5/);
    expect(text).toMatch(/ETIMEDOUT: 1213/);
    expect(text).toMatch(/target 0->20/);
    expect(text).toMatch(/Results: \/r\/x$/);
  });

  test('tables align columns and show missing values as -', () => {
    expect(
      table(
        [
          { a: 1, b: null },
          { a: 22.5, b: 'x' },
        ],
        [
          ['a', 'A'],
          ['b', 'B'],
        ],
      ),
    ).toBe('A     B\n1     -\n22.5  x');
  });
});
