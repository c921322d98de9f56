import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import {
  type IssuedToken,
  TokenLoad,
  clientCredentialsRequests,
  codeRequests,
  exchangeCodes,
  figure,
  halfWrittenGrants,
  inactiveTokens,
  prepareCodes,
  refreshRequests,
} from '../support/load.js';
import { type Nginx, nginxSkipReason, startBehindNginx } from '../support/nginx.js';
import { basic } from '../support/oauth.js';
import {
  type ProcessStore,
  type RunningServer,
  admin,
  buildOnce,
  createProcessStore,
  serverEnv,
  spawnServer,
  stopAll,
  waitForStatus,
} from '../support/process.js';
import { testStoreKind } from '../support/store.js';

/**
 * Process faults under load: a SIGTERM to one of two instances behind nginx fails no
 * request (the stopping instance refuses new ones with a 503 that nginx sends elsewhere, and
 * finishes those it has), and a SIGKILL loses no token that was answered.
 */
const ADMIN_TOKEN = 'shutdown-under-load-admin-token-0123456789';
const REDIRECT_URI = 'https://app.example/callback';
const PASSWORD = 'correct horse battery';
const TEST = 'process-faults';

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

/** The log lines (pino JSON) a process printed. */
const logLines = (output: string): Array<Record<string, unknown>> =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A realm without rate limits, and a confidential client of the client credentials, code and refresh token grants. */
async function setUp(server: { baseUrl: string }, realm: string): Promise<{ clientId: string; authorization: string }> {
  await admin(server, ADMIN_TOKEN, 'POST', '/realms', { name: realm, settings: { rate_limit_token: null, rate_limit_sign_in: null } });
  await admin(server, ADMIN_TOKEN, 'POST', `/realms/${realm}/users`, { username: 'alice', password: PASSWORD });
  const client = await admin<{ client_id: string; client_secret: string }>(server, ADMIN_TOKEN, 'POST', `/realms/${realm}/clients`, {
    grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
    redirect_uris: [REDIRECT_URI],
    scope: 'openid',
  });
  return { clientId: client.client_id, authorization: basic(client.client_id, client.client_secret) };
}

/**
 * A token request whose body is not sent: in flight at the server until `finish()`. It asks
 * `Expect: 100-continue`, so `sent` resolves once the server has read its headers and taken
 * it in (Node answers 100 Continue as it emits the request).
 */
function heldTokenRequest(url: string, authorization: string): { sent: Promise<void>; finish(): void; status: Promise<number> } {
  const body = 'grant_type=client_credentials';
  const req = request(url, {
    method: 'POST',
    agent: false,
    headers: {
      authorization,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(body.length),
      expect: '100-continue',
    },
  });
  const status = new Promise<number>((resolve) => {
    req.on('error', () => resolve(0));
    req.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
  });
  const sent = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  req.flushHeaders();
  return { sent, finish: () => req.end(body), status };
}

describe.skipIf(testStoreKind() !== 'postgres' || nginxSkipReason() !== undefined)(
  `SIGTERM to one of two instances behind nginx under load${testStoreKind() !== 'postgres' ? ' (skipped: runs in the postgres project only)' : nginxSkipReason() ? ` (skipped: ${nginxSkipReason()})` : ''}`,
  () => {
    let store: ProcessStore;
    let nginx: Nginx;
    let a: RunningServer;
    let b: RunningServer;

    beforeAll(async () => {
      await buildOnce();
      store = await createProcessStore();
      const fleet = await startBehindNginx(2, { ...store.env, ADMIN_TOKEN });
      nginx = fleet.nginx;
      [a, b] = fleet.instances as [RunningServer, RunningServer];
    }, 60_000);

    afterAll(async () => {
      await stopAll();
      await nginx?.stop();
      await store?.dispose();
    });

    it('fails no request: the stopping instance finishes what it has, nginx sends the rest to the other, and it exits 0', async () => {
      const { authorization } = await setUp(a, 'term');
      const load = new TokenLoad({
        tokenUrl: `${nginx.baseUrl}/oauth2/term/access_token`,
        authorization,
        kinds: [clientCredentialsRequests()],
        concurrency: 8,
        pauseMs: 5,
        maxMs: 20_000,
      });
      await load.answered(200);

      // One request certainly in flight at A when the signal comes: its body is still on its way.
      const held = heldTokenRequest(`${a.baseUrl}/oauth2/term/access_token`, authorization);
      await held.sent;
      expect((await fetch(`${a.baseUrl}/healthz`)).status).toBe(200);

      const signalledAt = Date.now();
      a.process.signal('SIGTERM');
      await delay(100);
      // While it drains: alive, not ready, and turning requests away unread, in the contract's shape.
      expect((await fetch(`${a.baseUrl}/healthz`)).status).toBe(200);
      const readyz = await fetch(`${a.baseUrl}/readyz`);
      expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 503, body: { status: 'stopping' } });
      const refused = await fetch(`${a.baseUrl}/oauth2/term/access_token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
      held.finish();
      const exit = await a.process.waitForExit(10_000);
      const exitedAt = Date.now();
      const exitMs = exitedAt - signalledAt;
      await delay(1_000); // B carries on alone
      await load.stop();

      const addressA = `127.0.0.1:${a.port}`;
      const addressB = `127.0.0.1:${b.port}`;
      const failed = load.answers.filter((answer) => answer.status !== 200);
      const servedByA = load.answers.filter((answer) => answer.upstream === addressA);
      const finishedAfterSignal = servedByA.filter((answer) => answer.end > signalledAt);
      const retried = load.answers.filter((answer) => answer.upstream?.includes(','));
      const stopping = logLines(a.process.stdout).find((line) => String(line.msg).startsWith('stopping: new requests'));
      const closing = logLines(a.process.stdout).find((line) => line.msg === 'stopping: the listener closes');

      figure(TEST, 'SIGTERM: requests sent through nginx', load.answers.length);
      figure(TEST, 'SIGTERM: failed', failed.length);
      figure(TEST, 'SIGTERM: served by the stopped instance', `${servedByA.length} (${finishedAfterSignal.length} of them answered after the signal)`);
      figure(TEST, 'SIGTERM: in flight at the signal (its log)', String(stopping?.inFlight));
      const nginxLog = nginx.errorLog();
      figure(
        TEST,
        'SIGTERM: nginx passed on to the other instance after',
        `${String(closing?.refused)} drain 503s, ${count(nginxLog, /Connection refused/g)} refused and ${count(nginxLog, /reset by peer/g)} reset connections (${retried.length} answers came through both)`,
      );
      figure(TEST, 'SIGTERM: exit', `code ${exit.code} after ${exitMs} ms (drain ${String(closing?.drainMs)} ms)`);

      expect(failed.map((answer) => `${answer.status} ${answer.upstream} ${answer.error ?? JSON.stringify(answer.json)}`)).toEqual([]);
      expect(await held.status, 'the request in flight at the signal').toBe(200);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(exitMs).toBeLessThan(10_000);
      expect(servedByA.length).toBeGreaterThan(0);
      expect(load.answers.filter((answer) => answer.upstream === addressB && answer.start > exitedAt).length).toBeGreaterThan(0);
      for (const answer of retried) expect(answer.upstream).toBe(`${addressA}, ${addressB}`);
    }, 45_000);
  },
);

describe('SIGKILL under load, then a new instance on the same store', () => {
  let store: ProcessStore;
  let dataDir: string | undefined;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
    if (store.kind === 'pglite') {
      // A store that outlives the process: a data directory (MASTER_KEY is generated into it).
      dataDir = mkdtempSync(join(tmpdir(), 'realmgate-kill-'));
      store = { ...store, env: { DATA_DIR: dataDir } };
    }
  }, 60_000);

  afterEach(stopAll);

  afterAll(async () => {
    await stopAll();
    await store?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** realmgate on `port`, BASE_URL to match, started and waited for; the same port again after a crash. */
  async function startOn(port: number): Promise<RunningServer> {
    const baseUrl = `http://127.0.0.1:${port}`;
    const server = spawnServer(serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, ADMIN_TOKEN, ...store.env }));
    await waitForStatus(server, `${baseUrl}/healthz`, 200, server.spawnedAt + 30_000);
    return { process: server, port, baseUrl };
  }

  it('loses no token that was answered 200 before the kill', async () => {
    const port = await freePort();
    const first = await startOn(port);
    const { clientId, authorization } = await setUp(first, 'kill');
    const issuer = `${first.baseUrl}/oauth2/kill`;
    const codes = await prepareCodes({ issuer, clientId, redirectUri: REDIRECT_URI, username: 'alice', password: PASSWORD, scope: 'openid', count: 40 });
    const chains: IssuedToken[] = (await exchangeCodes(`${issuer}/access_token`, authorization, codes.slice(0, 8))).filter(
      (token) => token.kind === 'refresh_token',
    );
    const load = new TokenLoad({
      tokenUrl: `${issuer}/access_token`,
      authorization,
      kinds: [clientCredentialsRequests(), refreshRequests(chains), codeRequests(codes.slice(8))],
      concurrency: 8,
      pauseMs: 5,
      pauseAfterFailureMs: 50,
      maxMs: 20_000,
    });
    await load.answered(150);
    const killedAt = Date.now();
    first.process.signal('SIGKILL');
    expect((await first.process.waitForExit(5_000)).signal).toBe('SIGKILL');
    await load.stop();

    const second = await startOn(port);
    // A refresh token presented by a request the kill cut off may have been spent: not counted.
    const answered = [...chains, ...load.issued].filter((token) => token.at <= killedAt && !token.rotated && !token.inDoubt);
    const inactive = await inactiveTokens(`${second.baseUrl}/oauth2/kill/introspect`, authorization, answered);
    const unanswered = load.answers.filter((answer) => answer.status === 0).length;
    const halfWritten = store.kind === 'postgres' ? await halfWrittenGrantsOf(store, clientId) : undefined;

    const label = `SIGKILL (${store.kind})`;
    figure(TEST, `${label}: requests answered before the kill`, load.answers.filter((answer) => answer.end <= killedAt).length);
    figure(TEST, `${label}: requests cut off by the kill`, unanswered);
    figure(TEST, `${label}: tokens answered 200 before the kill, active on the new instance`, `${answered.length - inactive.length}/${answered.length}`);
    if (halfWritten) figure(TEST, `${label}: half-written grants`, JSON.stringify(halfWritten));

    expect(inactive.map((token) => `${token.label} ${token.kind}: ${token.answer}`)).toEqual([]);
    expect(answered.length).toBeGreaterThan(100);
    expect(load.answers.filter((answer) => answer.status !== 200 && answer.status !== 0)).toEqual([]);
    if (halfWritten) expect(Object.values(halfWritten)).toEqual([0, 0, 0, 0]);
  }, 90_000);
});

async function halfWrittenGrantsOf(store: ProcessStore, clientId: string) {
  const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
  await client.connect();
  try {
    return await halfWrittenGrants((text, values) => client.query(text, values), clientId);
  } finally {
    await client.end();
  }
}
