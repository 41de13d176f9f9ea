// Checked by `tsc` in lint (npm run lint): the library's declarations as a user's TypeScript
// test meets them. The @ts-expect-error lines fail the check when the types stop refusing them.
import lab, { capacity, choose, compare, type CapacityResult, type Progress } from 'node-deploy-lab';

async function holds(): Promise<number | null> {
  const ac = new AbortController();
  const run = capacity({
    endpoint: '/api/items',
    app: __dirname,
    deployments: ['single'],
    slo: 'p99<500',
    start: 5,
    maxRate: 40,
    repetitions: 1,
    signal: ac.signal,
  })
    .on('progress', (p: Progress) => p.sent)
    .on('log', (line: string) => line.length);
  const result: CapacityResult = await run;
  const code: number | null = run.exitCode;
  void code;
  // (Each CPU's speed, typed: a number a CPU, or why there is none.)
  const slowest: number | undefined = result.cpuSpeeds?.start?.cpus?.[0]?.ms;
  const why: string | undefined = result.cpuSpeeds?.end?.unavailable;
  void slowest;
  void why;
  return result.deployments[0].maxRate;
}

// choose's dimensions (issue 82, 86): the Node versions and the replica sizes compared.
async function chooses(): Promise<void> {
  await choose({ endpoint: '/api/items', app: __dirname, rate: 50, node: [22, 24], sizes: ['25%', '50%'] });
  // (The autoscaler it writes left unchecked; a scenario's own phases.)
  await choose({ endpoint: '/x', rate: 5, noCheckAutoscale: true });
  await lab.scenario({ endpoint: '/x', scenario: 'endurance', deployment: 'single', phases: '10-20/60s,20/30s' });
}

async function wrong(): Promise<void> {
  // @ts-expect-error a size is a CPU share as text, not a number
  await choose({ endpoint: '/x', rate: 5, sizes: [25, 50] });
  // @ts-expect-error the phases are text, like '10-20/60s'
  await lab.scenario({ endpoint: '/x', phases: [10, 20] });
  // @ts-expect-error a rate is a number
  await lab.capacity({ endpoint: '/x', maxRate: 'fast' });
  // @ts-expect-error compare needs its runs
  await compare({});
  // @ts-expect-error no such event
  lab.down().on('finished', () => {});
}

void holds;
void chooses;
void wrong;
