import autocannon from 'autocannon';
import type { HttpRequest } from './oauth.js';

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
}

/** What autocannon measured of one run. */
export interface LoadResult {
  /** Mean of the per-second request counts. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Non-2xx answers, 2xx answers that failed the scenario's check, connection errors and timeouts. */
  readonly errors: number;
  /** Up to five distinct answers counted as errors. */
  readonly errorSamples: string[];
}

export interface LoadSpec {
  readonly request: HttpRequest;
  /** Checks the body of each 2xx answer (a token, `active: true`); false counts as an error. */
  check(body: string): boolean;
  /**
   * The body of each request, when it changes from one to the next (a rotated refresh
   * token): called before every request is sent.
   */
  nextBody?(): string;
  /** Headers of each request that change from one to the next (a DPoP proof): called before every request is sent. */
  nextHeaders?(): Record<string, string>;
}

function drive(spec: LoadSpec, connections: number, seconds: number): Promise<{ result: autocannon.Result; invalid: number; samples: string[] }> {
  const { url, method, headers, body } = spec.request;
  const { pathname, search } = new URL(url);
  let invalid = 0;
  const samples: string[] = [];
  const sample = (text: string) => {
    if (samples.length < 5 && !samples.includes(text)) samples.push(text);
  };
  const { nextBody, nextHeaders } = spec;
  const setupRequest = (req: autocannon.Request): autocannon.Request => ({
    ...req,
    ...(nextBody ? { body: nextBody() } : {}),
    ...(nextHeaders ? { headers: { ...req.headers, ...nextHeaders() } } : {}),
  });
  const request: autocannon.Request = {
    method,
    path: `${pathname}${search}`,
    headers,
    body,
    ...(nextBody || nextHeaders ? { setupRequest } : {}),
    onResponse: (status: number, answer: string) => {
      if (status < 200 || status > 299) sample(`${status}: ${answer.slice(0, 200)}`);
      else if (!spec.check(answer)) {
        invalid += 1;
        sample(`${status}, failed the check: ${answer.slice(0, 200)}`);
      }
    },
  };
  return autocannon({ url, connections, duration: seconds, requests: [request] }).then((result) => ({ result, invalid, samples }));
}

/** A warm-up run (JIT, pools, caches), then the measured run with the same settings. */
export async function warmUp(spec: LoadSpec, options: LoadOptions): Promise<void> {
  if (options.warmupSeconds > 0) await drive(spec, options.connections, options.warmupSeconds);
}

export async function measureLoad(spec: LoadSpec, options: LoadOptions): Promise<LoadResult> {
  const { result, invalid, samples } = await drive(spec, options.connections, options.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.non2xx + result.errors + invalid,
    errorSamples: [...samples, ...(result.errors > 0 ? [`${result.errors} connection errors or timeouts`] : [])],
  };
}
