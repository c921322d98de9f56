import autocannon from 'autocannon';
import type { HttpRequest } from './oauth.js';

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
}

export interface Measurement {
  /** Mean of the per-second request counts. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Non-2xx answers plus connection errors and timeouts. */
  readonly errors: number;
}

function drive(request: HttpRequest, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({ ...request, connections, duration: seconds });
}

/** A warm-up run (JIT, pools, caches), then the measured run with the same settings. */
export async function measure(request: HttpRequest, options: LoadOptions): Promise<Measurement> {
  if (options.warmupSeconds > 0) await drive(request, options.connections, options.warmupSeconds);
  const result = await drive(request, options.connections, options.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.non2xx + result.errors,
  };
}
