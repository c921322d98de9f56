import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_TIMEOUTS } from '../../src/store/db.js';
import {
  type Answer,
  type IssuedToken,
  TokenLoad,
  clientCredentialsRequests,
  codeRequests,
  exchangeCodes,
  figure,
  halfWrittenGrants,
  inactiveTokens,
  latency,
  prepareCodes,
  refreshRequests,
} from '../support/load.js';
import { basic } from '../support/oauth.js';
import { PostgresCluster, clusterSkipReason } from '../support/postgres-cluster.js';
import { type RunningServer, admin, buildOnce, randomMasterKey, startServer, stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

/**
 * PostgreSQL goes away under load and comes back: realmgate answers 503 quickly meanwhile,
 * /readyz says so, and service resumes without a restart, having lost no token it answered
 * and left no grant half-written. The PostgreSQL here is a private cluster of this test (the
 * shared server on 5432 serves other tests and is never stopped).
 */
const skipReason = testStoreKind() !== 'postgres' ? 'runs in the postgres project only' : clusterSkipReason();

const ADMIN_TOKEN = 'database-faults-admin-token-0123456789';
const REALM = 'faults';
const REDIRECT_URI = 'https://app.example/callback';
const PASSWORD = 'correct horse battery';
/** How long a new database connection may take before the request answers 503. */
const CONNECT_TIMEOUT_MS = DATABASE_TIMEOUTS.connectMs;
const OUTAGE_MS = 3_000;
const TEST = 'database-faults';

describe.skipIf(skipReason !== undefined)(`database faults under load${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let cluster: PostgresCluster;
  let server: RunningServer;
  let sql: pg.Pool;
  let clientId: string;
  let authorization: string;
  let issuer: string;

  beforeAll(async () => {
    await buildOnce();
    cluster = await PostgresCluster.create();
    await cluster.start();
    sql = new pg.Pool({ connectionString: cluster.url(), max: 2 });
    sql.on('error', () => {}); // its idle connections die with each stop
    server = await startServer({ DATABASE_URL: cluster.url(), MASTER_KEY: randomMasterKey(), ADMIN_TOKEN, LOG_LEVEL: 'warn' });
    await admin(server, ADMIN_TOKEN, 'POST', '/realms', {
      name: REALM,
      settings: { rate_limit_token: null, rate_limit_sign_in: null },
    });
    await admin(server, ADMIN_TOKEN, 'POST', `/realms/${REALM}/users`, { username: 'alice', password: PASSWORD });
    const client = await admin<{ client_id: string; client_secret: string }>(server, ADMIN_TOKEN, 'POST', `/realms/${REALM}/clients`, {
      grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
      redirect_uris: [REDIRECT_URI],
      scope: 'openid',
    });
    clientId = client.client_id;
    authorization = basic(client.client_id, client.client_secret);
    issuer = `${server.baseUrl}/oauth2/${REALM}`;
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    await sql?.end().catch(() => {});
    await cluster?.dispose();
  });

  const tokenUrl = () => `${issuer}/access_token`;

  /** Codes to exchange during the load, and refresh tokens (from codes exchanged now) to rotate. */
  async function prepareTraffic(): Promise<{ codes: Awaited<ReturnType<typeof prepareCodes>>; chains: IssuedToken[] }> {
    const codes = await prepareCodes({ issuer, clientId, redirectUri: REDIRECT_URI, username: 'alice', password: PASSWORD, scope: 'openid', count: 48 });
    const issued = await exchangeCodes(tokenUrl(), authorization, codes.slice(0, 8));
    return { codes: codes.slice(8), chains: issued.filter((token) => token.kind === 'refresh_token') };
  }

  /** /readyz's status; 0 when it does not answer at all. */
  async function readyz(): Promise<number> {
    try {
      return (await fetch(`${server.baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) })).status;
    } catch {
      return 0;
    }
  }

  /** /readyz, every 250 ms until `until`. */
  async function pollReadyz(until: number): Promise<number[]> {
    const statuses: number[] = [];
    while (Date.now() < until) {
      statuses.push(await readyz());
      await delay(250);
    }
    return statuses;
  }

  async function firstSuccessAfter(load: TokenLoad, since: number, timeoutMs: number): Promise<Answer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const success = load.answers.find((answer) => answer.start >= since && answer.status === 200);
      if (success || Date.now() > deadline) return success;
      await delay(10);
    }
  }

  /** Runs the load, breaks PostgreSQL with `fault` for OUTAGE_MS, brings it back, and checks everything. */
  async function outage(name: string, fault: () => Promise<void>): Promise<void> {
    const { codes, chains } = await prepareTraffic();
    const load = new TokenLoad({
      tokenUrl: tokenUrl(),
      authorization,
      kinds: [clientCredentialsRequests(), refreshRequests(chains), codeRequests(codes)],
      // Enough issuances in flight at the fault for a half-written one to show.
      concurrency: 8,
      pauseMs: 10,
      pauseAfterFailureMs: 50,
      maxMs: 40_000,
    });
    await load.answered(60);
    expect(await readyz()).toBe(200);

    const faultAt = Date.now();
    await fault();
    const downAt = Date.now(); // PostgreSQL accepts nothing from here on
    const readyDuring = await pollReadyz(downAt + OUTAGE_MS);
    const restartAt = Date.now();
    await cluster.start();
    const upAt = Date.now();
    const recovered = await firstSuccessAfter(load, upAt, 20_000);
    await delay(500);
    await load.stop();
    const readyAfter = await readyz();

    const during = load.answers.filter((answer) => answer.start >= downAt && answer.end <= restartAt);
    const unavailable = during.filter((answer) => answer.status === 503);
    const others = load.answers.filter((answer) => answer.status !== 200 && answer.status !== 503);
    const maxLatency = Math.max(0, ...during.map(latency));
    const beforeFault = [...chains, ...load.issued].filter((token) => token.at < faultAt && !token.rotated);
    const inactive = await inactiveTokens(`${issuer}/introspect`, authorization, beforeFault);
    const halfWritten = await halfWrittenGrants((text, values) => sql.query(text, values), clientId);

    const label = `${TEST} (${name})`;
    figure(label, 'requests sent', load.answers.length);
    figure(label, 'answered 200', load.answers.filter((answer) => answer.status === 200).length);
    figure(label, 'failed (no answer, 5xx other than 503, 4xx)', others.length);
    figure(label, 'outage', `${restartAt - downAt} ms (stopping took ${downAt - faultAt} ms)`);
    figure(label, 'requests during the outage', `${during.length}, of which 503: ${unavailable.length}`);
    figure(label, 'max latency during the outage', `${maxLatency} ms (connect timeout ${CONNECT_TIMEOUT_MS} ms)`);
    figure(label, '/readyz during / after', `${[...new Set(readyDuring)].join(',')} / ${readyAfter}`);
    figure(label, 'time to recover (PostgreSQL up to first 200)', recovered ? `${recovered.end - upAt} ms` : 'never');
    figure(label, 'tokens answered 200 before the fault, still active', `${beforeFault.length - inactive.length}/${beforeFault.length}`);
    figure(label, 'half-written grants', JSON.stringify(halfWritten));

    expect(server.process.exit, `realmgate keeps running; its output:\n${server.process.output.slice(-5_000)}`).toBeUndefined();
    expect(others.map((answer) => `${answer.label} ${answer.status} ${answer.error ?? JSON.stringify(answer.json)}`)).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ error: 'temporarily_unavailable' });
      expect(answer.retryAfter).toBe('1');
    }
    expect(maxLatency).toBeLessThan(CONNECT_TIMEOUT_MS);
    expect(new Set(readyDuring)).toEqual(new Set([503]));
    expect(readyAfter).toBe(200);
    expect(recovered, 'service resumes without a restart').toBeDefined();
    expect(inactive.map((token) => `${token.label} ${token.kind}: ${token.answer}`)).toEqual([]);
    expect(halfWritten).toEqual({
      'used codes without tokens': 0,
      'rotated refresh tokens without a successor': 0,
      'access tokens without their refresh token': 0,
      'refresh tokens without their access token': 0,
    });
  }

  it('PostgreSQL stops (pg_ctl stop -m fast) and starts again', async () => {
    await outage('clean stop', () => cluster.stop('fast'));
  }, 45_000);

  it('PostgreSQL crashes (pg_ctl stop -m immediate) and starts again', async () => {
    await outage('crash', () => cluster.stop('immediate'));
  }, 45_000);
});
