import type { Measurement } from './load.js';
import type { Part } from './config.js';

/** One target of issue 9 ("Scale"), as measured. */
export interface Check {
  readonly name: string;
  readonly measured: string;
  readonly target: string;
  readonly pass: boolean;
}

export interface PartResult {
  readonly part: Part;
  readonly seconds: number;
  readonly checks: Check[];
  /** The figures behind the checks, and what explains them. */
  readonly figures: Record<string, unknown>;
  /** Lines printed under the table (e.g. the soak's samples). */
  readonly notes: string[];
}

const pad = (text: string, width: number): string => text.padEnd(width);

export function formatTable(results: readonly PartResult[]): string {
  const rows = results.flatMap((result) => result.checks.map((check) => ({ part: result.part, ...check })));
  const widths = {
    part: Math.max(4, ...rows.map((row) => row.part.length)),
    name: Math.max(5, ...rows.map((row) => row.name.length)),
    measured: Math.max(8, ...rows.map((row) => row.measured.length)),
    target: Math.max(6, ...rows.map((row) => row.target.length)),
  };
  const line = (part: string, name: string, measured: string, target: string, result: string): string =>
    `${pad(part, widths.part)}  ${pad(name, widths.name)}  ${pad(measured, widths.measured)}  ${pad(target, widths.target)}  ${result}`;
  const lines = [line('part', 'check', 'measured', 'target', 'result')];
  for (const row of rows) lines.push(line(row.part, row.name, row.measured, row.target, row.pass ? 'PASS' : 'FAIL'));
  for (const result of results) {
    lines.push('', `${result.part} (${Math.round(result.seconds)} s):`);
    for (const note of result.notes) lines.push(`  ${note}`);
  }
  return `${lines.join('\n')}\n`;
}

export const ratio = (value: number, of: number): number => (of > 0 ? Number((value / of).toFixed(3)) : Number.NaN);
export const mb = (value: number): string => `${value} MB`;
export const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en')} req/s`;

/** A measurement as the JSON result holds it. */
export const row = (m: Measurement) => ({
  requests_per_s: m.requestsPerSecond,
  p50_ms: m.p50Ms,
  p99_ms: m.p99Ms,
  max_ms: m.maxMs,
  requests: m.requests,
  seconds: m.seconds,
  errors: m.errors,
  timeouts: m.timeouts,
  status: m.statusCodes,
  server_cpu_ms_per_request: m.serverCpuMsPerRequest ?? null,
  server_cores: m.serverCores ?? null,
  database_cpu_ms_per_request: m.databaseCpuMsPerRequest ?? null,
  database_per_request: m.databasePerRequest ?? null,
  machine_cores: m.machineCores,
  load_at_start: m.loadAtStart,
});

/** A measurement on one line of the notes. */
export const describe = (m: Measurement): string =>
  `${perSecond(m.requestsPerSecond)}, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${m.errors} errors (${m.timeouts} timeouts); server ${m.serverCpuMsPerRequest ?? '?'} ms CPU/request, ${m.serverCores ?? '?'} cores; PostgreSQL ${m.databaseCpuMsPerRequest ?? '?'} ms CPU/request${activity(m)}; machine ${m.machineCores} cores busy, load ${m.loadAtStart}`;

/** The database's counters per request, as `describe` prints them. */
function activity(m: Measurement): string {
  const a = m.databasePerRequest;
  if (!a) return '';
  return ` (${a.commits} commits, rows ${a.inserted} inserted ${a.updated} updated ${a.deleted} deleted, pages ${a.bufferHits} hit ${a.reads} read)`;
}
