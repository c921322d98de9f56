import { wholeNumber } from '../main.js';

/** The parts of `npm run bench:scale`, in the order they run. */
export const PARTS = ['realms', 'tokens', 'cleanup', 'soak'] as const;
export type Part = (typeof PARTS)[number];

/** Sizes and run lengths, from the environment (README.md lists them with their defaults). */
export interface ScaleConfig {
  /** The PostgreSQL server: each part runs on a throwaway database of it. */
  readonly serverUrl: string;
  readonly realms: number;
  readonly clientsPerRealm: number;
  readonly tokens: number;
  /** The small table that the large one is compared with. */
  readonly tokensSmall: number;
  readonly expired: number;
  readonly soakSeconds: number;
  readonly soakSampleSeconds: number;
  /** Seconds of each measured run (the soak has its own). */
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** Runs of each of the two setups compared (realms, tokens), in alternation. */
  readonly rounds: number;
  /** Peak RSS allowed to the server process of the realms part. */
  readonly rssBudgetMb: number;
  /**
   * With a value (a PostgreSQL size, or `default`), the `tokens` part runs on a PostgreSQL
   * cluster of its own (own-cluster.ts) with that `shared_buffers`, not on the server of `serverUrl`.
   */
  readonly tokensSharedBuffers: string | undefined;
  /** Each server runs under `node --cpu-prof`, its profile written to results/profiles/. */
  readonly cpuProfile: boolean;
  readonly output: string;
}

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function readConfig(output: string): ScaleConfig {
  return {
    serverUrl: process.env.DATABASE_URL || DEFAULT_SERVER_URL,
    realms: wholeNumber('SCALE_REALMS', 10_000, 1),
    clientsPerRealm: wholeNumber('SCALE_CLIENTS_PER_REALM', 10, 1),
    tokens: wholeNumber('SCALE_TOKENS', 10_000_000, 1000),
    tokensSmall: wholeNumber('SCALE_TOKENS_SMALL', 10_000, 100),
    expired: wholeNumber('SCALE_EXPIRED', 1_000_000, 1000),
    soakSeconds: wholeNumber('SCALE_SOAK_SECONDS', 600, 30),
    soakSampleSeconds: wholeNumber('SCALE_SOAK_SAMPLE_SECONDS', 5, 1),
    durationSeconds: wholeNumber('SCALE_DURATION', 10, 1),
    warmupSeconds: wholeNumber('SCALE_WARMUP', 5, 0),
    connections: wholeNumber('SCALE_CONNECTIONS', 50, 1),
    rounds: wholeNumber('SCALE_ROUNDS', 3, 1),
    rssBudgetMb: wholeNumber('SCALE_RSS_BUDGET_MB', 512, 1),
    tokensSharedBuffers: sharedBuffers(process.env.SCALE_PG_SHARED_BUFFERS),
    cpuProfile: process.env.SCALE_CPU_PROF === '1' || process.env.SCALE_CPU_PROF === 'true',
    output: process.env.SCALE_OUTPUT || output,
  };
}

/** A size PostgreSQL reads (`4GB`, `512MB`, `131072` pages of 8 kB) or `default`; unset or empty: none. */
function sharedBuffers(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^(default|\d+(kB|MB|GB|TB)?)$/.test(raw)) throw new Error(`SCALE_PG_SHARED_BUFFERS: expected a size such as 4GB, or default; got ${raw}`);
  return raw;
}

/** The parts named on the command line (all when none), in their fixed order. */
export function selectedParts(args: readonly string[]): Part[] {
  const unknown = args.filter((arg) => !(PARTS as readonly string[]).includes(arg));
  if (unknown.length > 0) throw new Error(`unknown part ${unknown.join(', ')}: expected any of ${PARTS.join(', ')}`);
  return args.length === 0 ? [...PARTS] : PARTS.filter((part) => args.includes(part));
}
