import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import type { HttpRequest } from './http.js';
import { machineBusySeconds, processCpuSeconds } from './procfs.js';

/** One measured run of autocannon. */
export interface Measurement {
  /** Completed requests over the run's seconds. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly requests: number;
  readonly seconds: number;
  /** Non-2xx answers, connection errors and timeouts, and answers `check` refused. */
  readonly errors: number;
  /** Of the errors, requests unanswered after autocannon's 10 s. */
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  /** Server CPU per answered request, and cores it kept busy (with `serverPid`). */
  readonly serverCpuMsPerRequest?: number;
  readonly serverCores?: number;
  /** CPU per answered request of the PostgreSQL backends serving the server (`withDatabaseCpu`). */
  readonly databaseCpuMsPerRequest?: number;
  /** What PostgreSQL counted for the server's database per answered request (`withDatabaseCpu`, given `activity`). */
  readonly databasePerRequest?: DatabaseActivity;
  /** Cores busy on the whole machine: the server, PostgreSQL, autocannon, and whatever else runs. */
  readonly machineCores: number;
  /** The machine's load average over the last minute as the run began: how many others wanted the cores. */
  readonly loadAtStart: number;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly connections: number;
  /** Seconds to run; without it (and without `amount`), until `stop`. */
  readonly seconds?: number;
  /** Requests to send in all, then stop (each connection's list in order: a pass over them). */
  readonly amount?: number;
  /**
   * The requests connection `n` sends, in a loop. Each connection has its own list, so that
   * the load spreads over many clients and realms without every connection sending the
   * same request at the same time (and without autocannon copying one long list to each).
   */
  requestsFor(connection: number): readonly HttpRequest[];
  /** Whether an answer's body is what the scenario expects (e.g. an active token); a refusal counts as an error. */
  readonly check?: (body: string) => boolean;
  /** The server's pid, for its CPU time. */
  readonly serverPid?: number;
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/** CPU seconds of each of `pids` so far (a process that has ended is left out). */
function cpuByPid(pids: readonly number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    try {
      seconds.set(pid, processCpuSeconds(pid));
    } catch {
      // ended
    }
  }
  return seconds;
}

/**
 * A database's counters in `pg_stat_database`: transactions committed (one per statement
 * outside a transaction), rows inserted, updated and deleted, and pages found in PostgreSQL's
 * buffers or read (from the kernel). A backend reports them at a commit at most once a
 * second, and when idle after 10 s: a run's last second may count in the next one.
 */
export interface DatabaseActivity {
  readonly commits: number;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly bufferHits: number;
  readonly reads: number;
}

/**
 * `run`, with the CPU per request of the PostgreSQL backends that `backends` lists, read before
 * and after it: a backend the pool opened during the run counts from its start, one it closed
 * takes its seconds with it. With `activity`, the database's counters per request as well.
 */
export async function withDatabaseCpu(
  run: () => Promise<Measurement>,
  backends: () => Promise<number[]>,
  activity?: () => Promise<DatabaseActivity>,
): Promise<Measurement> {
  const countersBefore = await activity?.();
  const before = cpuByPid(await backends());
  const measurement = await run();
  let seconds = 0;
  for (const [pid, cpu] of cpuByPid(await backends())) seconds += cpu - (before.get(pid) ?? 0);
  const countersAfter = await activity?.();
  const requests = Math.max(1, measurement.requests);
  const perRequest =
    countersBefore && countersAfter
      ? (Object.fromEntries(
          Object.keys(countersAfter).map((name) => {
            const key = name as keyof DatabaseActivity;
            return [key, round((countersAfter[key] - countersBefore[key]) / requests, 2)];
          }),
        ) as unknown as DatabaseActivity)
      : undefined;
  return {
    ...measurement,
    databaseCpuMsPerRequest: round((seconds * 1000) / requests, 3),
    ...(perRequest ? { databasePerRequest: perRequest } : {}),
  };
}

/** Starts autocannon; `done` resolves when it ends, after `seconds`, `amount` or `stop()`. */
export function startLoad(options: LoadOptions): { done: Promise<Measurement>; stop(): void } {
  let refused = 0;
  const { check } = options;
  const toAutocannon = (request: HttpRequest): autocannon.Request => {
    const expected = request.check ?? check;
    return {
      method: request.method,
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: request.body,
      ...(expected ? { onResponse: (status: number, body: string) => void (status === 200 && !expected(body) && refused++) } : {}),
    };
  };
  // Every connection's requests are made before autocannon starts its clock: made as it set up
  // each connection (100,000 requests in the realms part), they took some 0.6 s of the seconds
  // the rate is divided by, in which no request was sent.
  const lists = Array.from({ length: options.connections }, (_, n) => options.requestsFor(n).map(toAutocannon));
  let connection = 0;
  let instance: autocannon.Instance | undefined;
  const { serverPid } = options;
  const cpuBefore = serverPid === undefined ? 0 : processCpuSeconds(serverPid);
  const machineBefore = machineBusySeconds();
  const loadAtStart = round(loadavg()[0]!);
  const done = new Promise<Measurement>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 24 * 3600 }),
        setupClient: (client) => client.setRequests(lists[connection++]!),
      },
      (error, result) => {
        if (error) return reject(error as Error);
        const statusCodes: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
        const seconds = result.duration;
        const serverCpu = serverPid === undefined ? undefined : processCpuSeconds(serverPid) - cpuBefore;
        resolve({
          requestsPerSecond: round(result.requests.total / seconds),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          maxMs: result.latency.max,
          requests: result.requests.total,
          seconds: round(seconds),
          errors: result.non2xx + result.errors + refused,
          timeouts: result.timeouts,
          statusCodes,
          ...(serverCpu === undefined
            ? {}
            : { serverCpuMsPerRequest: round((serverCpu * 1000) / Math.max(1, result.requests.total), 3), serverCores: round(serverCpu / seconds, 2) }),
          machineCores: round((machineBusySeconds() - machineBefore) / seconds, 2),
          loadAtStart,
        });
      },
    );
  });
  return { done, stop: () => instance?.stop() };
}

export const runLoad = (options: LoadOptions): Promise<Measurement> => startLoad(options).done;

/** A warm-up run (JIT, pools, caches, connections), then the measured run with the same requests. */
export async function measure(options: Omit<LoadOptions, 'seconds' | 'amount'>, warmupSeconds: number, seconds: number): Promise<Measurement> {
  if (warmupSeconds > 0) await runLoad({ ...options, seconds: warmupSeconds });
  return runLoad({ ...options, seconds });
}

/** `count` picks from `items`, uniformly at random (with repetition). */
export function randomPicks<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, () => items[Math.floor(Math.random() * items.length)]!);
}

export const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** What the rounds of one setup cost: the server's and its PostgreSQL backends' mean CPU per request (ms), and their timeouts. */
export const setupCost = (runs: readonly Measurement[]): { cpuMsPerRequest: number; databaseCpuMsPerRequest: number; timeouts: number } => ({
  cpuMsPerRequest: Number(mean(runs.map((m) => m.serverCpuMsPerRequest ?? Number.NaN)).toFixed(3)),
  databaseCpuMsPerRequest: Number(mean(runs.map((m) => m.databaseCpuMsPerRequest ?? Number.NaN)).toFixed(3)),
  timeouts: runs.reduce((sum, m) => sum + m.timeouts, 0),
});

/**
 * `rounds` runs of each setup, in alternation and in mirrored order (a, b, b, a, a, b…), so
 * that the machine's drift (other work on it, tables growing) falls on both alike and neither
 * always runs first. `before` runs ahead of each run (e.g. to favour the processes it loads).
 */
export async function alternate<K extends string>(
  rounds: number,
  runs: Record<K, () => Promise<Measurement>>,
  before: () => Promise<void> = async () => {},
): Promise<Array<Record<K, Measurement>>> {
  const results: Array<Record<K, Measurement>> = [];
  const entries = Object.entries(runs) as Array<[K, () => Promise<Measurement>]>;
  for (let round = 0; round < rounds; round++) {
    const result = {} as Record<K, Measurement>;
    for (const [name, run] of round % 2 === 0 ? entries : [...entries].reverse()) {
      await before();
      result[name] = await run();
    }
    results.push(result);
  }
  return results;
}
