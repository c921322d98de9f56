import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/store/migrate.js';
import { CHROMIUM, launchChromium, signIn, startCallbackServer, startsWith } from '../browser/support.js';
import { pkce } from '../support/flow.js';
import { figure } from '../support/load.js';
import { type Nginx, nginxSkipReason, startBehindNginx } from '../support/nginx.js';
import { basic } from '../support/oauth.js';
import { type ProcessStore, type RunningServer, admin, buildOnce, createProcessStore, postForm, stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

/**
 * Two realmgate processes on one PostgreSQL database behind nginx (round robin), as
 * CONTRACT.md §1 runs many instances: they migrate once when started together, a browser
 * flow crosses from one to the other, and what one changes the other honours within 1 s.
 */
const skipReason =
  testStoreKind() !== 'postgres'
    ? 'runs in the postgres project only'
    : (nginxSkipReason() ?? (existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium)`));

const ADMIN_TOKEN = 'multi-instance-admin-token-0123456789';
const PASSWORD = 'correct horse battery';
const TEST = 'multi-instance';
/** How soon a change made on one instance must be honoured by the other. */
const PROPAGATION_LIMIT_MS = 1_000;

/** The log lines (pino JSON) a process printed. */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Polls `probe` until it returns true and returns how long after `since` that was; fails
 * past the limit (a few polls more than it, so that the figure shows how far it was missed).
 */
async function honouredWithin(since: number, probe: () => Promise<boolean>): Promise<number> {
  const deadline = since + PROPAGATION_LIMIT_MS * 3;
  while (Date.now() < deadline) {
    if (await probe()) return Date.now() - since;
    await delay(5);
  }
  throw new Error(`not honoured within ${Date.now() - since} ms`);
}

describe.skipIf(skipReason !== undefined)(`two instances behind nginx${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let store: ProcessStore;
  let nginx: Nginx;
  let a: RunningServer;
  let b: RunningServer;
  let browser: Browser | undefined;
  let callback: Awaited<ReturnType<typeof startCallbackServer>> | undefined;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
    // An empty database: both processes start at once and race to migrate it.
    const fleet = await startBehindNginx(2, { ...store.env, ADMIN_TOKEN });
    nginx = fleet.nginx;
    [a, b] = fleet.instances as [RunningServer, RunningServer];
    for (const name of ['opaque', 'stateless']) {
      await admin(a, ADMIN_TOKEN, 'POST', '/realms', {
        name,
        settings: { stateless_tokens: name === 'stateless', rate_limit_token: null, rate_limit_sign_in: null },
      });
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (callback ? callback.server.close(resolve) : resolve(undefined)));
    await stopAll();
    await nginx?.stop();
    await store?.dispose();
  });

  it('migrates once when both start together on an empty database, and both become ready', async () => {
    figure(TEST, 'spawned apart', `${Math.abs(a.process.spawnedAt - b.process.spawnedAt)} ms`);
    const migrations = readMigrations().map((migration) => migration.name);
    const applied = [a, b].map((instance) =>
      logLines(instance.process.stdout)
        .filter((line) => line.msg === 'migrations applied')
        .flatMap((line) => line.migrations as string[]),
    );
    figure(TEST, 'migrations applied by each instance', applied.map((names) => names.length).join(' and '));
    // One of them applied every migration, the other none.
    expect(applied.map((names) => names.length).sort()).toEqual([0, migrations.length]);
    expect(applied.flat()).toEqual(migrations);

    const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await client.connect();
    try {
      const rows = (await client.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM schema_migrations ORDER BY version'))
        .rows;
      expect(rows.map((row) => row.name)).toEqual(migrations);
      // now() is the start of the transaction: one transaction applied them all.
      expect(new Set(rows.map((row) => row.applied_at.getTime())).size).toBe(1);
    } finally {
      await client.end();
    }
    for (const instance of [a, b]) expect((await fetch(`${instance.baseUrl}/readyz`)).status).toBe(200);
  });

  it('a browser flow started on one instance finishes on the other (Chromium, code flow with PKCE)', async () => {
    callback = await startCallbackServer();
    await admin(a, ADMIN_TOKEN, 'POST', '/realms/opaque/users', { username: 'alice', password: PASSWORD });
    const client = await admin<{ client_id: string }>(a, ADMIN_TOKEN, 'POST', '/realms/opaque/clients', {
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid',
    });
    const issuer = `${nginx.baseUrl}/oauth2/opaque`;
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: callback.redirectUri,
      scope: 'openid',
      state: 'across',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });

    browser = await launchChromium();
    const context = await browser.newContext();
    const steps: Array<{ step: string; upstream: string }> = [];
    try {
      const page = await context.newPage();
      page.on('response', (response) => {
        const url = new URL(response.url());
        const upstream = response.headers()['x-upstream'];
        if (url.origin === nginx.baseUrl && upstream) steps.push({ step: `${response.request().method()} ${url.pathname}`, upstream });
      });
      await page.goto(`${issuer}/authorize?${query}`);
      expect(page.url()).toMatch(startsWith(`${issuer}/login?`));
      await signIn(page, 'alice', PASSWORD, startsWith(`${issuer}/consent?`));
      const atCallback = (url: URL) => `${url.origin}${url.pathname}` === callback!.redirectUri;
      await Promise.all([page.waitForURL(atCallback), page.locator('button[name=decision][value=allow]').click()]);
      const redirect = new URL(page.url());
      expect(redirect.searchParams.get('state')).toBe('across');
      expect(redirect.searchParams.get('iss')).toBe(issuer);

      const response = await postForm(`${issuer}/access_token`, {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: callback.redirectUri,
        client_id: client.client_id,
        code_verifier: verifier,
      });
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String) });
      steps.push({ step: 'POST /access_token', upstream: response.headers.get('x-upstream')! });
    } finally {
      await context.close();
    }

    const names = new Map([
      [`127.0.0.1:${a.port}`, 'A'],
      [`127.0.0.1:${b.port}`, 'B'],
    ]);
    figure(TEST, 'browser flow steps', steps.map(({ step, upstream }) => `${step} → ${names.get(upstream) ?? upstream}`).join(', '));
    const flowSteps = steps.filter(({ step }) => /\/(authorize|login|consent|access_token)$/.test(step));
    expect(flowSteps.map(({ step }) => step)).toEqual(
      expect.arrayContaining(['GET /oauth2/opaque/authorize', 'POST /oauth2/opaque/login', 'POST /oauth2/opaque/consent', 'POST /access_token']),
    );
    // Both instances served steps of the one flow.
    expect(new Set(flowSteps.map(({ upstream }) => upstream))).toEqual(new Set(names.keys()));
  }, 60_000);

  for (const realm of ['opaque', 'stateless']) {
    it(`a revocation on one instance is seen by introspection on the other within 1 s (${realm} access tokens)`, async () => {
      const client = await admin<{ client_id: string; client_secret: string }>(a, ADMIN_TOKEN, 'POST', `/realms/${realm}/clients`, {
        grant_types: ['client_credentials'],
      });
      const authorization = basic(client.client_id, client.client_secret);
      const issued = await postForm(`${a.baseUrl}/oauth2/${realm}/access_token`, { grant_type: 'client_credentials' }, { authorization });
      expect(issued.status).toBe(200);
      const token = ((await issued.json()) as { access_token: string }).access_token;
      expect(token.split('.').length, 'a JWT in the stateless realm, an opaque token otherwise').toBe(realm === 'stateless' ? 3 : 1);
      const activeOnB = async () => {
        const response = await postForm(`${b.baseUrl}/oauth2/${realm}/introspect`, { token }, { authorization });
        expect(response.status).toBe(200);
        return ((await response.json()) as { active: boolean }).active;
      };
      expect(await activeOnB()).toBe(true);

      const revoked = await postForm(`${a.baseUrl}/oauth2/${realm}/token/revoke`, { token }, { authorization });
      expect(revoked.status).toBe(200);
      const delay = await honouredWithin(Date.now(), async () => !(await activeOnB()));
      figure(TEST, `revocation on A seen by introspection on B (${realm})`, `${delay} ms`);
      expect(delay).toBeLessThan(PROPAGATION_LIMIT_MS);
    });
  }

  it('a client change on one instance is honoured by the other within 1 s: grant types, secret, deletion', async () => {
    const created = await admin<{ client_id: string; client_secret: string }>(a, ADMIN_TOKEN, 'POST', '/realms/opaque/clients', {
      grant_types: ['client_credentials'],
    });
    const { client_id: clientId } = created;
    const tokenOnB = async (secret: string) => {
      const response = await postForm(`${b.baseUrl}/oauth2/opaque/access_token`, { grant_type: 'client_credentials' }, {
        authorization: basic(clientId, secret),
      });
      return { status: response.status, error: ((await response.json()) as { error?: string }).error };
    };
    // B has the client in its cache before each change.
    expect(await tokenOnB(created.client_secret)).toEqual({ status: 200, error: undefined });

    await admin(a, ADMIN_TOKEN, 'PATCH', `/realms/opaque/clients/${clientId}`, { grant_types: ['password'] });
    const grantTypesDelay = await honouredWithin(Date.now(), async () => (await tokenOnB(created.client_secret)).error === 'unauthorized_client');
    await admin(a, ADMIN_TOKEN, 'PATCH', `/realms/opaque/clients/${clientId}`, { grant_types: ['client_credentials'] });
    await honouredWithin(Date.now(), async () => (await tokenOnB(created.client_secret)).status === 200);

    const rotated = await admin<{ client_secret: string }>(a, ADMIN_TOKEN, 'POST', `/realms/opaque/clients/${clientId}/secret`);
    const secretDelay = await honouredWithin(Date.now(), async () => (await tokenOnB(created.client_secret)).status === 401);
    expect(await tokenOnB(rotated.client_secret)).toEqual({ status: 200, error: undefined });

    await admin(a, ADMIN_TOKEN, 'DELETE', `/realms/opaque/clients/${clientId}`);
    const deletionDelay = await honouredWithin(Date.now(), async () => (await tokenOnB(rotated.client_secret)).status === 401);

    figure(TEST, 'grant_types changed on A, refused on B after', `${grantTypesDelay} ms`);
    figure(TEST, 'secret rotated on A, old secret refused on B after', `${secretDelay} ms`);
    figure(TEST, 'client deleted on A, refused on B after', `${deletionDelay} ms`);
    expect(grantTypesDelay).toBeLessThan(PROPAGATION_LIMIT_MS);
    expect(secretDelay).toBeLessThan(PROPAGATION_LIMIT_MS);
    expect(deletionDelay).toBeLessThan(PROPAGATION_LIMIT_MS);
    expect(await tokenOnB(rotated.client_secret)).toMatchObject({ status: 401, error: 'invalid_client' });
  });
});
