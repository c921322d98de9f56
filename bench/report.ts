import type { LoadOptions, Measurement } from './load.js';

export const SCENARIOS = ['client_credentials', 'introspection'] as const;
/** `realmgate-jwt`: the same server, in a realm with `stateless_tokens` (RFC 9068 JWT access tokens, not stored). */
export const SERVERS = ['realmgate', 'realmgate-jwt', 'oidc-provider', 'ceiling'] as const;
export type Scenario = (typeof SCENARIOS)[number];
export type ServerName = (typeof SERVERS)[number];
export type Results = Record<Scenario, Record<ServerName, Measurement>>;

export interface RunInfo extends LoadOptions {
  readonly store: 'postgres' | 'pglite';
  readonly node: string;
}

/** What realmgate is compared with. */
const BASELINES = ['oidc-provider', 'ceiling'] as const satisfies readonly ServerName[];

const round = (value: number, digits: number): number => Number(value.toFixed(digits));
/** realmgate's value over the baseline's: above 1 is more throughput, or more latency. */
const ratio = (ours: number, theirs: number): number | null => (theirs > 0 ? round(ours / theirs, 3) : null);

function ratios(rows: Record<ServerName, Measurement>) {
  const pairs: Array<[ServerName, ServerName]> = [
    ...BASELINES.map((baseline): [ServerName, ServerName] => ['realmgate', baseline]),
    // What stateless access tokens change, measured in the same run.
    ['realmgate-jwt', 'realmgate'],
  ];
  return Object.fromEntries(
    pairs.map(([server, baseline]) => {
      const ours = rows[server];
      const theirs = rows[baseline];
      return [
        `${server}/${baseline}`,
        {
          requests_per_s: ratio(ours.requestsPerSecond, theirs.requestsPerSecond),
          p50_ms: ratio(ours.p50Ms, theirs.p50Ms),
          p99_ms: ratio(ours.p99Ms, theirs.p99Ms),
        },
      ];
    }),
  );
}

/** Runs with errors measured something else than the scenario: their numbers are not comparable. */
function flagged(results: Results): string[] {
  return SCENARIOS.flatMap((scenario) =>
    SERVERS.filter((server) => results[scenario][server].errors > 0).map(
      (server) => `${scenario}/${server}: ${results[scenario][server].errors} errors or non-2xx answers`,
    ),
  );
}

export function toJson(info: RunInfo, results: Results) {
  const scenarios = Object.fromEntries(
    SCENARIOS.map((scenario) => [
      scenario,
      {
        ...Object.fromEntries(
          SERVERS.map((server) => {
            const m = results[scenario][server];
            return [
              server,
              { requests_per_s: round(m.requestsPerSecond, 1), p50_ms: m.p50Ms, p99_ms: m.p99Ms, requests: m.requests, errors: m.errors },
            ];
          }),
        ),
        ratios: ratios(results[scenario]),
      },
    ]),
  );
  const problems = flagged(results);
  return {
    store: info.store,
    duration_s: info.durationSeconds,
    warmup_s: info.warmupSeconds,
    connections: info.connections,
    node: info.node,
    scenarios,
    ok: problems.length === 0,
    flagged: problems,
  };
}

const times = (value: number | null): string => (value === null ? 'n/a' : `x${value.toFixed(2)}`);

export function formatTables(info: RunInfo, results: Results): string {
  const lines: string[] = [];
  const cell = (value: string | number, width: number): string => String(value).padStart(width);
  for (const scenario of SCENARIOS) {
    lines.push(
      `${scenario}: ${info.connections} connections, ${info.durationSeconds} s after a ${info.warmupSeconds} s warm-up, store ${info.store}, node ${info.node}`,
      `${'server'.padEnd(15)}${cell('req/s', 10)}${cell('p50 ms', 9)}${cell('p99 ms', 9)}${cell('errors', 9)}`,
    );
    for (const server of SERVERS) {
      const m = results[scenario][server];
      lines.push(
        `${server.padEnd(15)}${cell(m.requestsPerSecond.toFixed(1), 10)}${cell(m.p50Ms, 9)}${cell(m.p99Ms, 9)}${cell(m.errors, 9)}`,
      );
    }
    for (const [name, r] of Object.entries(ratios(results[scenario]))) {
      lines.push(`${name.padEnd(26)} req/s ${times(r.requests_per_s)}   p50 ${times(r.p50_ms)}   p99 ${times(r.p99_ms)}`);
    }
    lines.push('');
  }
  for (const problem of flagged(results)) lines.push(`FLAGGED ${problem}: not comparable`);
  return `${lines.join('\n')}\n`;
}
