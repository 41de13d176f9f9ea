// The library's types (docs/api.md). Each function takes the command's flags in camelCase
// (`maxRate` for --max-rate), its positional words by name, and returns a promise of what the
// command prints with --json, with events on it.
/// <reference types="node" />

/** A flag's value: a list flag takes an array (or comma text), a flag alone takes true. */
type FlagValue = string | number | boolean | ReadonlyArray<string | number> | undefined;

/** What every call takes besides its command's flags. */
export interface CommonOptions {
  /** Cancels the run as Ctrl-C would: everything it started stops, what it measured is kept. */
  signal?: AbortSignal;
  /** More environment for the run (LAB_SETUP: 'skip' leaves the set-up out). */
  env?: Record<string, string>;
  /** Where the deployment's state lives (default: .lab in the folder the call is made from). */
  stateDir?: string;
  /** The first port of the block the deployment takes. */
  portBase?: number;
  host?: string;
  /** Where a new run folder is made (default: results/ in the folder the call is made from). */
  resultsDir?: string;
  /** The run's folder itself. */
  runDir?: string;
  /** The plan only: what would run, and for how long; nothing starts. */
  plan?: boolean;
  /** Any other flag of the command, in camelCase: checked by the command's own schema. */
  [flag: string]: FlagValue | AbortSignal | Record<string, string>;
}

export interface ScenarioOptions extends CommonOptions {
  endpoint?: string;
  scenario?: string;
  deployment?: string;
  script?: string;
  app?: string;
  rate?: number;
  /** The load's own phases instead of the scenario's: '10-20/60s,20-10/30s,10/90s'. */
  phases?: string;
  duration?: string | number;
  replicas?: number;
  workers?: number;
}

export interface CapacityOptions extends CommonOptions {
  /** The path of your service (/api/items) or one of the lab's endpoints. */
  endpoint?: string;
  script?: string;
  /** Your service's folder. */
  app?: string;
  /** The deployments searched: ['single', 'replicated'] or 'single,replicated'. */
  deployments?: string | ReadonlyArray<string>;
  /** One SLO or several: 'p99<200', ['p99<200', 'errors<1%']. */
  slo?: string | ReadonlyArray<string>;
  start?: number;
  maxRate?: number;
  minRate?: number;
  repetitions?: number;
  hold?: string | number;
  warmup?: string | number;
  verifyHold?: string | number;
  timeLimit?: string | number;
  replicas?: string | ReadonlyArray<number>;
  /** After --replicas' counts, the one where this rate is expected to land and the one above. */
  replicasFor?: number;
  cap?: string | ReadonlyArray<string>;
  /** The service on other Node versions: majors or exact versions, ['22', '24'] or '22,24'. */
  node?: string | number | ReadonlyArray<string | number>;
}

export interface ChooseOptions extends CapacityOptions {
  rate?: number;
  price?: string;
  /** The replica sizes compared, CPU shares: ['25%', '50%', '100%'] or '25%,50%,100%'. */
  sizes?: string | ReadonlyArray<string>;
  /** The shapes compared: ['replicated', 'multi-replicated']. */
  shapes?: string | ReadonlyArray<string>;
  /** No run of the HPA it writes under the lab's autoscaler (it runs when the HPA can scale). */
  noCheckAutoscale?: boolean;
}

export interface StudyOptions extends CommonOptions {
  study?: string;
  dir?: string;
}

export interface CharacterizeOptions extends CommonOptions {
  target?: string;
}

export interface CompareOptions extends CommonOptions {
  /** Two run folders or more. */
  runs: ReadonlyArray<string>;
}

export type DownOptions = CommonOptions;

/** The signaling connections' estimate (seed 002): memory, levels, max, noVerify... */
export type SignalOptions = CommonOptions;

/** The live line's figures, a second apart, while load runs. */
export interface Progress {
  elapsedS: number | null;
  totalS: number;
  sent: number;
  done: number;
  errors: number;
  connected?: number;
  p99Ms: number | null;
}

/** One deployment's answer in a capacity search. */
export interface DeploymentCapacity {
  deployment: string;
  label: string;
  /** The highest rate held for the stated time, or null when there is none to give. */
  maxRate: number | null;
  /** What bounded it: 'slo', 'generator', 'drift', 'restarted', 'time-limit'... */
  bound?: string;
  /** The sentence the terminal shows. */
  text: string;
  verified?: { ok: boolean; rate?: number; holdS?: number; [k: string]: unknown } | null;
  [k: string]: unknown;
}

/** One computation timed on each CPU, pinned there: where they differ, capacities move with them. */
export interface CpuSpeeds {
  at: string;
  cpus?: Array<{ cpu: number; ms: number }>;
  /** The slowest CPU's time over the fastest's, less one, in %. */
  spreadPct?: number;
  /** Why there is no reading (no taskset, a reading that failed). */
  unavailable?: string;
}

export interface CapacityResult {
  endpoint?: string;
  settings: Record<string, unknown>;
  levels: Array<Record<string, unknown>>;
  deployments: DeploymentCapacity[];
  best: unknown;
  notRanked?: string;
  machineLimit?: string;
  /** Each CPU's speed at the search's start and end. */
  cpuSpeeds?: { start?: CpuSpeeds; end?: CpuSpeeds };
  /** Said when the CPUs ran over 15% apart. */
  cpuSpeedsText?: string;
  seconds: number;
  [k: string]: unknown;
}

/** What --json prints for the commands not typed in detail. */
export type JsonResult = Record<string, unknown>;

/** A run: a promise of its answer, with events. */
export interface Run<T> extends Promise<T> {
  on(event: 'log', listener: (line: string) => void): this;
  on(event: 'progress', listener: (figures: Progress) => void): this;
  on(event: 'exit', listener: (how: { code: number | null; signal: string | null }) => void): this;
  once(event: 'log' | 'progress' | 'exit', listener: (arg: any) => void): this;
  off(event: 'log' | 'progress' | 'exit', listener: (arg: any) => void): this;
  /** The command's exit code once it ended (1: a run that failed, its answer still given). */
  readonly exitCode: number | null;
}

/** What a call rejects with: the lab's error, its code as the command line's. */
export interface LabError extends Error {
  code: string;
  exitCode: number;
  stderr?: string;
  result?: unknown;
}

export function scenario(options: ScenarioOptions): Run<JsonResult>;
export function capacity(options: CapacityOptions): Run<CapacityResult>;
export function signal(options?: SignalOptions): Run<JsonResult>;
export function choose(options: ChooseOptions): Run<JsonResult>;
export function study(options: StudyOptions): Run<JsonResult>;
export function characterize(options: CharacterizeOptions): Run<JsonResult>;
export function compare(options: CompareOptions): Run<JsonResult>;
export function down(options?: DownOptions): Run<JsonResult>;

declare const lab: {
  scenario: typeof scenario;
  capacity: typeof capacity;
  signal: typeof signal;
  choose: typeof choose;
  study: typeof study;
  characterize: typeof characterize;
  compare: typeof compare;
  down: typeof down;
};
export default lab;
