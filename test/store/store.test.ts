import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { deleteExpired } from '../../src/store/cleanup.js';
import { migrate, readMigrations } from '../../src/store/migrate.js';
import { createPgDb } from '../../src/store/pg.js';
import { sha256 } from '../../src/secrets.js';
import { ADMIN_TOKEN, AdminClient, type TestApp, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode, pkce } from '../support/flow.js';
import { accessToken, basic, clientCredentials, introspect, postForm, revoke } from '../support/oauth.js';
import { Invalidations } from '../support/invalidations.js';
import { createTestDb, testStoreKind } from '../support/store.js';
import { storeToken } from '../support/tokens.js';

describe('store', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('records every migration once, and applies nothing the second time', async () => {
    const applied = await t.store.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.rows.map((row) => row.version)).toEqual(readMigrations().map((migration) => migration.version));
    expect(await migrate(t.store.db)).toEqual([]);
  });

  it('caches clients with the values they have in common shared and frozen, and each its own', async () => {
    await t.admin.createRealm('shared-values');
    const [a, b] = [await t.admin.serviceClient('shared-values'), await t.admin.serviceClient('shared-values')];
    const [first, second] = [await t.store.clients.get('shared-values', a.clientId), await t.store.clients.get('shared-values', b.clientId)];
    expect(second!.grant_types).toBe(first!.grant_types);
    expect(second!.redirect_uris).toBe(first!.redirect_uris);
    expect(Object.isFrozen(first!.grant_types)).toBe(true);
    expect(Object.isFrozen(first)).toBe(true);
    expect([first!.client_id, second!.client_id]).toEqual([a.clientId, b.clientId]);
    expect(first!.secretHash).not.toEqual(second!.secretHash);
    // Held as a base64 string and a number of seconds, which take a fraction of a Buffer's and a Date's memory.
    expect(Buffer.from(first!.secretHash!, 'base64').equals(sha256(a.secret))).toBe(true);
    expect(first!.issuedAt).toBeTypeOf('number');
    expect(Math.abs(first!.issuedAt - Date.now() / 1000)).toBeLessThan(60);
  });

  it('deletes expired tokens in batches and keeps the others', async () => {
    await t.admin.createRealm('cleanup');
    const svc = await t.admin.serviceClient('cleanup');
    for (let i = 0; i < 23; i++) await storeToken(t.store, { realm: 'cleanup', clientId: svc.clientId, expiresInMs: -1000 });
    const live = await accessToken(t.app, 'cleanup', svc);

    const deleted = await deleteExpired(t.store.db, { batchSize: 5, pauseMs: 0 });
    expect(deleted).toBe(23);
    const left = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens WHERE realm = 'cleanup'");
    expect(left.rows[0]!.n).toBe(1);
    expect((await introspect(t.app, 'cleanup', svc, live)).json().active).toBe(true);
  });

  it('deletes expired sessions, transactions, pushed requests, and codes a day past their expiry', async () => {
    await t.admin.createRealm('flows');
    const setup = await codeFlowSetup(t.admin, 'flows');
    const browser = new TestBrowser(t.app, t.baseUrl);
    await obtainCode(browser, 'flows', setup);
    // A code, a session, a transaction (left at the sign-in page) and a pushed request of this realm.
    await browser.get(`/oauth2/flows/authorize?${new URLSearchParams({ client_id: setup.clientId, response_type: 'code', scope: 'openid', prompt: 'login', code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`);
    const confidential = await t.admin.createClient('flows', { redirect_uris: [REDIRECT_URI], scope: 'openid' });
    const pushed = await postForm(t.app, '/oauth2/flows/par', { response_type: 'code', scope: 'openid' }, {
      authorization: basic(confidential.client_id, confidential.client_secret!),
    });
    expect(pushed.statusCode).toBe(201);
    const tables = ['sessions', 'authorization_transactions', 'pushed_requests', 'authorization_codes'];
    const count = async (table: string) =>
      (await t.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE realm = 'flows'`)).rows[0]!.n;
    for (const table of tables) expect(await count(table), table).toBeGreaterThan(0);

    for (const table of tables) await t.store.db.query(`UPDATE ${table} SET expires_at = now() - interval '1 hour' WHERE realm = 'flows'`);
    await deleteExpired(t.store.db, { batchSize: 100, pauseMs: 0 });
    for (const table of tables.slice(0, 3)) expect(await count(table), table).toBe(0);
    expect(await count('authorization_codes'), 'a code is kept a day, to recognise its replay').toBeGreaterThan(0);

    await t.store.db.query("UPDATE authorization_codes SET expires_at = now() - interval '25 hours' WHERE realm = 'flows'");
    await deleteExpired(t.store.db, { batchSize: 100, pauseMs: 0 });
    expect(await count('authorization_codes')).toBe(0);
  });

  it('deletes retired signing keys once they expire', async () => {
    await t.admin.createRealm('keys');
    const before = await t.store.signingKeys.published('keys');
    await t.admin.request('POST', '/realms/keys/keys/rotate');
    await t.store.db.query("UPDATE signing_keys SET expires_at = now() - interval '1 second' WHERE realm = 'keys' AND retired_at IS NOT NULL");
    await deleteExpired(t.store.db, { batchSize: 100, pauseMs: 0 });
    const after = await t.store.signingKeys.published('keys');
    expect(after).toHaveLength(2);
    expect(after.map((key) => key.kid)).not.toContain(before[0]!.kid);
  });
});

describe('the periodic cleanup job', () => {
  it('deletes expired rows while the server runs', async () => {
    const t = await startTestApp({ cleanup: { intervalMs: 50, batchSize: 4, pauseMs: 0 } });
    try {
      await t.admin.createRealm('periodic');
      const svc = await t.admin.serviceClient('periodic');
      for (let i = 0; i < 10; i++) await storeToken(t.store, { realm: 'periodic', clientId: svc.clientId, expiresInMs: -1000 });
      const live = await accessToken(t.app, 'periodic', svc);
      const count = async () =>
        (await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tokens WHERE realm = 'periodic'")).rows[0]!.n;
      const deadline = Date.now() + 5000;
      while ((await count()) > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await count()).toBe(1);
      expect((await introspect(t.app, 'periodic', svc, live)).json().active).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('store outages', () => {
  it('reports an unreachable PostgreSQL as StoreUnavailableError', async () => {
    const db = createPgDb('postgres://postgres@127.0.0.1:1/none');
    await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toBeInstanceOf(StoreUnavailableError);
    await db.close();
  });

  it('turns /readyz to 503 when the store does not answer', async () => {
    const t = await startTestApp();
    try {
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await t.store.db.close();
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.app.close().catch(() => {});
    }
  });
});

/** Two instances on one PostgreSQL database, as behind a load balancer. */
describe.skipIf(testStoreKind() !== 'postgres')('many instances on one database', () => {
  const instances: Array<{ app: Awaited<ReturnType<typeof buildApp>>; admin: AdminClient }> = [];
  let dispose: () => Promise<void>;
  let migrationRows: Array<{ version: number }>;
  let invalidations: Invalidations;
  /** Both instances have handled every cache invalidation committed so far (test/support/invalidations.ts). */
  let settled: () => Promise<void>;

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    const first = await createTestDb();
    settled = () => invalidations.settled(first.db, 2);
    dispose = first.dispose;
    const masterKey = randomBytes(32);
    const dbs = [first.db, createPgDb(first.databaseUrl!, { searchPath: first.searchPath! })];
    // Both migrate at once: the advisory lock lets one apply the migrations and the other wait.
    const prepared = await Promise.all(dbs.map((db) => prepare(db, { masterKey, adminToken: ADMIN_TOKEN })));
    migrationRows = (await first.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows;
    for (const { store, encryption, adminToken } of prepared) {
      const app = await buildApp({ config: { baseUrl: 'https://auth.test', trustProxy: false }, store, encryption, adminTokenHash: adminToken.hash, cleanup: false });
      instances.push({ app, admin: new AdminClient(app) });
    }
  });
  afterAll(async () => {
    invalidations?.stop();
    for (const { app } of instances) await app.close();
    await dispose();
  });

  it('migrated once though both started together', () => {
    expect(instances).toHaveLength(2);
    expect(migrationRows.map((row) => row.version)).toEqual(readMigrations().map((migration) => migration.version));
  });

  // A change reaches the other instance's caches with its notification, a moment after it commits:
  // once that has arrived (not after a pause, which a loaded machine may outlast), the change holds there.
  it('honours a client change made on one instance on the other once its notification has arrived', async () => {
    const [a, b] = instances;
    await a!.admin.createRealm('shared');
    const svc = await a!.admin.serviceClient('shared');
    // B caches the client by using it.
    expect((await clientCredentials(b!.app, 'shared', svc)).statusCode).toBe(200);

    const rotated = await a!.admin.request('POST', `/realms/shared/clients/${svc.clientId}/secret`);
    const secret = rotated.json().client_secret as string;
    await settled();
    expect((await clientCredentials(b!.app, 'shared', svc)).statusCode).toBe(401);
    expect((await clientCredentials(b!.app, 'shared', { clientId: svc.clientId, secret })).statusCode).toBe(200);
  });

  it('honours a realm disabled on one instance on the other once its notification has arrived', async () => {
    const [a, b] = instances;
    await a!.admin.createRealm('switch');
    const url = '/oauth2/switch/.well-known/openid-configuration';
    expect((await b!.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    await a!.admin.request('PATCH', '/realms/switch', { settings: { oauth2_enabled: false } });
    await settled();
    expect((await b!.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('honours a revocation made on one instance on the other at once', async () => {
    const [a, b] = instances;
    await a!.admin.createRealm('revocation');
    const svc = await a!.admin.serviceClient('revocation');
    const token = await accessToken(a!.app, 'revocation', svc);
    expect((await introspect(b!.app, 'revocation', svc, token)).json().active).toBe(true);
    expect((await revoke(a!.app, 'revocation', svc, token)).statusCode).toBe(200);
    expect((await introspect(b!.app, 'revocation', svc, token)).json()).toEqual({ active: false });
  });
});
