import { type FlowVariant, STEPS, type Step, VirtualBrowser, driveFlows, obtainRefreshTokens } from './browser.js';
import { DpopProver } from './dpop.js';
import { type LoadOptions, type LoadSpec, measureLoad, warmUp } from './load.js';
import { formPost, jsonStringField, send, stringField } from './oauth.js';
import { type CpuReading, withCpuReading } from './procfs.js';
import { log } from './processes.js';
import type { ServerName, Target, TokenFormat } from './targets/target.js';

export type ScenarioKind = 'client_credentials' | 'introspection' | 'refresh' | 'flow';

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly kind: ScenarioKind;
  readonly tokens: TokenFormat;
  readonly variant?: FlowVariant;
  /** Each request with a DPoP proof of one key (RFC 9449): the access tokens are bound to it. */
  readonly dpop?: boolean;
  /** Servers that cannot serve the scenario, and why: left out, not measured. */
  readonly unsupported?: Partial<Record<ServerName, string>>;
  /**
   * The scenario whose ceiling measurement stands for this one's: the ceiling answers the
   * same request the same way whatever the kind of token, so it is measured once.
   */
  readonly ceilingSameAs?: string;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'client_credentials', title: 'client credentials, opaque access tokens', kind: 'client_credentials', tokens: 'opaque' },
  {
    name: 'client_credentials_jwt',
    title: 'client credentials, stateless (JWT) access tokens',
    kind: 'client_credentials',
    tokens: 'jwt',
    ceilingSameAs: 'client_credentials',
  },
  {
    name: 'client_credentials_dpop',
    title: 'client credentials, opaque access tokens bound to a DPoP key',
    kind: 'client_credentials',
    tokens: 'opaque',
    dpop: true,
    // The ceiling reads no header: its answer to the same request is client_credentials'.
    ceilingSameAs: 'client_credentials',
  },
  { name: 'introspection', title: 'introspection of an opaque access token', kind: 'introspection', tokens: 'opaque' },
  {
    name: 'introspection_jwt',
    title: 'introspection of a JWT access token',
    kind: 'introspection',
    tokens: 'jwt',
    ceilingSameAs: 'introspection',
    unsupported: {
      'oidc-provider': 'stores no JWT access token, so its introspection answers active: false for them (resource servers verify them)',
    },
  },
  { name: 'refresh', title: 'refresh token grant, rotating the refresh token', kind: 'refresh', tokens: 'opaque' },
  { name: 'flow', title: 'browser flow, first time: authorize, sign-in, consent, token', kind: 'flow', tokens: 'opaque', variant: 'first_time' },
  {
    name: 'flow_returning',
    title: 'browser flow, returning: authorize, sign-in, token (consent remembered)',
    kind: 'flow',
    tokens: 'opaque',
    variant: 'returning',
  },
];

/** What one server process measured on one scenario. */
export interface ServerResult {
  readonly unit: 'req/s' | 'flows/s';
  /** Requests per second (autocannon's mean of its per-second counts) or completed flows per second. */
  readonly rate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Requests answered, or flows completed, in the measured run. */
  readonly count: number;
  readonly errors: number;
  readonly errorSamples: string[];
  readonly cpu: CpuReading;
  /** Flows: mean milliseconds of each kind of request of a completed flow. */
  readonly meanStepMs?: Partial<Record<Step, number>>;
}

export interface Settings {
  readonly load: LoadOptions;
  /** Browsers driven side by side in the flow scenarios (and to obtain refresh tokens). */
  readonly flowConcurrency: number;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

async function loadScenario(target: Target, spec: LoadSpec, settings: Settings): Promise<ServerResult> {
  await warmUp(spec, settings.load);
  const { result, reading } = await withCpuReading(target, settings.load.durationSeconds, () => measureLoad(spec, settings.load));
  return loadResult(result, reading);
}

/** What a load run measured, as the result of a server in a scenario. */
function loadResult(result: Awaited<ReturnType<typeof measureLoad>>, reading: ServerResult['cpu']): ServerResult {
  return {
    unit: 'req/s',
    rate: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    count: result.requests,
    errors: result.errors,
    errorSamples: result.errorSamples,
    cpu: reading,
  };
}

/**
 * With `dpop`, every request carries a new proof of one key, and every answer must be a token
 * bound to it (`token_type: DPoP`): the server verifies the proof's signature and spends its
 * `jti` (realmgate in the database, node-oidc-provider in its memory).
 */
async function clientCredentials(target: Target, settings: Settings, dpop: boolean): Promise<ServerResult> {
  const request = formPost(target.tokenUrl, target.service, { grant_type: 'client_credentials', scope: 'api' });
  const prover = dpop ? new DpopProver() : undefined;
  const proofHeaders = (): Record<string, string> => (prover ? { dpop: prover.proof('POST', target.tokenUrl) } : {});
  const first = await send({ ...request, headers: { ...request.headers, ...proofHeaders() } });
  if (dpop && first.token_type !== 'DPoP') throw new Error(`${target.tokenUrl} answered a ${String(first.token_type)} token to a DPoP proof`);
  await target.checkAccessToken(stringField(first, 'access_token', target.tokenUrl), target.service);
  let last: string | undefined;
  const result = await loadScenario(
    target,
    {
      request,
      ...(prover ? { nextHeaders: proofHeaders } : {}),
      check: (body) => {
        const token = jsonStringField(body, 'access_token');
        if (token === undefined || (dpop && jsonStringField(body, 'token_type') !== 'DPoP')) return false;
        last = token;
        return true;
      },
    },
    settings,
  );
  // A token issued under load is live: it was stored (or signed) before it was returned.
  if (last) await target.checkAccessToken(last, target.service);
  return result;
}

async function introspection(target: Target, settings: Settings): Promise<ServerResult> {
  const token = stringField(
    await send(formPost(target.tokenUrl, target.service, { grant_type: 'client_credentials', scope: 'api' })),
    'access_token',
    target.tokenUrl,
  );
  const request = formPost(target.introspectionUrl, target.service, { token });
  const answer = await send(request);
  if (answer.active !== true) throw new Error(`${target.introspectionUrl} reports a fresh token inactive: ${JSON.stringify(answer)}`);
  return loadScenario(target, { request, check: (body) => body.includes('"active":true') }, settings);
}

const browsersOf = (target: Target, usernames: readonly string[]) => usernames.map((username) => new VirtualBrowser(target.flow, username));

/**
 * Each connection sends a refresh token and the next request sends the one its answer
 * rotated in. Every run starts from fresh grants (from first-time browser flows), since the
 * requests still in flight when a run stops spend tokens whose successors are never read.
 */
async function refresh(target: Target, usernames: readonly string[], settings: Settings): Promise<ServerResult> {
  const { connections } = settings.load;
  const browsers = browsersOf(target, usernames);
  let lastAccessToken: string | undefined;
  const chains = async (): Promise<LoadSpec> => {
    // A few spare grants: a connection error loses the token in flight. Used first in, first
    // out, so that no token waits long: node-oidc-provider's in-memory adapter keeps its last
    // 1,000 to 2,000 entries, and a spare left at the bottom of a stack was forgotten by the time
    // it was sent ("refresh token not found").
    const pool = await obtainRefreshTokens(browsers, connections + Math.ceil(connections / 10) + 2);
    const body = (token: string): string => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString();
    const request = formPost(target.flow.tokenUrl, target.flow.client, { grant_type: 'refresh_token', refresh_token: 'set for each request' });
    return {
      request,
      nextBody: () => body(pool.shift() ?? 'no-refresh-token-left'),
      check: (answer) => {
        const refreshToken = jsonStringField(answer, 'refresh_token');
        const accessToken = jsonStringField(answer, 'access_token');
        if (!refreshToken || !accessToken) return false;
        pool.push(refreshToken);
        lastAccessToken = accessToken;
        return true;
      },
    };
  };

  // One refresh by hand first: it answers a new refresh token, and its access token is live.
  const [token] = await obtainRefreshTokens(browsers, 1);
  const first = await send(formPost(target.flow.tokenUrl, target.flow.client, { grant_type: 'refresh_token', refresh_token: token! }));
  stringField(first, 'refresh_token', target.flow.tokenUrl);
  await target.checkAccessToken(stringField(first, 'access_token', target.flow.tokenUrl), target.flow.client);

  if (settings.load.warmupSeconds > 0) await warmUp(await chains(), settings.load);
  const spec = await chains();
  const { result, reading } = await withCpuReading(target, settings.load.durationSeconds, () => measureLoad(spec, settings.load));
  if (lastAccessToken) await target.checkAccessToken(lastAccessToken, target.flow.client);
  return loadResult(result, reading);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function flow(target: Target, variant: FlowVariant, usernames: readonly string[], settings: Settings): Promise<ServerResult> {
  const { durationSeconds, warmupSeconds } = settings.load;
  const browsers = browsersOf(target, usernames);
  // Each person allows the scopes once, in the browser that then returns, so that a
  // returning flow finds its consent remembered (in the session, for node-oidc-provider).
  if (variant === 'returning') await Promise.all(browsers.map((browser) => browser.flow('first_time')));
  if (warmupSeconds > 0) await driveFlows(browsers, variant, warmupSeconds);
  const { result: run, reading } = await withCpuReading(target, durationSeconds, () => driveFlows(browsers, variant, durationSeconds));
  if (run.lastTokens) await target.checkAccessToken(run.lastTokens.access_token, target.flow.client);

  const meanStepMs: Partial<Record<Step, number>> = {};
  for (const step of STEPS) {
    const total = run.stepTotals.get(step);
    if (total !== undefined && run.latencies.length > 0) meanStepMs[step] = round(total / run.latencies.length, 2);
  }
  return {
    unit: 'flows/s',
    rate: run.latencies.length / durationSeconds,
    p50Ms: round(percentile(run.latencies, 50), 1),
    p99Ms: round(percentile(run.latencies, 99), 1),
    count: run.latencies.length,
    errors: run.errors,
    errorSamples: run.errorSamples,
    cpu: reading,
    meanStepMs,
  };
}

/** The people of the flows (one per browser driven side by side), for the scenarios that sign people in. */
export function usernamesFor(scenario: Scenario, settings: Settings): string[] {
  if (scenario.kind !== 'refresh' && scenario.kind !== 'flow') return [];
  return Array.from({ length: settings.flowConcurrency }, (_, i) => `user-${i + 1}`);
}

export async function runScenario(scenario: Scenario, server: ServerName, target: Target, settings: Settings): Promise<ServerResult> {
  const usernames = usernamesFor(scenario, settings);
  log(`${scenario.name}: ${server}`);
  switch (scenario.kind) {
    case 'client_credentials':
      return clientCredentials(target, settings, scenario.dpop === true);
    case 'introspection':
      return introspection(target, settings);
    case 'refresh':
      return refresh(target, usernames, settings);
    case 'flow':
      return flow(target, scenario.variant ?? 'first_time', usernames, settings);
  }
}
