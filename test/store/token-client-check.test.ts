import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/store/migrate.js';
import { sha256 } from '../../src/secrets.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { Invalidations } from '../support/invalidations.js';
import { accessToken, introspect } from '../support/oauth.js';
import { createTestDb } from '../support/store.js';
import { storeToken } from '../support/tokens.js';

/**
 * Tokens have no foreign key to clients (migrations/008_token_client_check_on_read.sql): a
 * token is read only while the client it was issued to exists, by that client's internal id.
 * The rows these tests write by hand are those a token write racing a client's deletion leaves.
 */
describe("a token's client, checked when the token is read", () => {
  let t: TestApp;
  let invalidations: Invalidations;

  beforeAll(async () => {
    invalidations = Invalidations.watch();
    t = await startTestApp();
    await t.admin.createRealm('checked');
  });
  afterAll(async () => {
    invalidations?.stop();
    await t?.close();
  });

  const internalIdOf = async (clientId: string): Promise<string> =>
    (await t.store.db.query<{ id: string }>("SELECT internal_id::text AS id FROM clients WHERE realm = 'checked' AND client_id = $1", [clientId]))
      .rows[0]!.id;
  const setClientOf = (token: string, internalId: string | null) =>
    t.store.db.query('UPDATE tokens SET client_internal_id = $2::bigint WHERE token_hash = $1', [sha256(token), internalId]);
  const deleteClient = async (clientId: string) =>
    expect((await t.admin.request('DELETE', `/realms/checked/clients/${clientId}`)).statusCode).toBe(204);

  it("stores each token with its client's internal id", async () => {
    const svc = await t.admin.serviceClient('checked', '', { client_id: 'plain' });
    const token = await accessToken(t.app, 'checked', svc);
    const row = await t.store.db.query<{ id: string }>('SELECT client_internal_id::text AS id FROM tokens WHERE token_hash = $1', [sha256(token)]);
    expect(row.rows[0]!.id).toBe(await internalIdOf('plain'));
  });

  it('stores the internal id of the client as the issuer read it, without reading the clients table', async () => {
    const svc = await t.admin.serviceClient('checked', '', { client_id: 'cached' });
    // The creation's own notification reaches the cache just after the commit, and would drop
    // the client the next request caches were it still on its way.
    await invalidations.settled(t.store.db);
    await accessToken(t.app, 'checked', svc); // the client is cached now
    const cachedId = await internalIdOf('cached');
    // Gone from the table behind the cache's back (no notification): what a deletion on another
    // instance looks like before its notification arrives.
    await t.store.db.query("DELETE FROM clients WHERE realm = 'checked' AND client_id = 'cached'");
    const token = await accessToken(t.app, 'checked', svc);
    const row = await t.store.db.query<{ id: string }>('SELECT client_internal_id::text AS id FROM tokens WHERE token_hash = $1', [sha256(token)]);
    expect(row.rows[0]!.id).toBe(cachedId);
    expect(await t.store.tokens.find(sha256(token))).toBeUndefined();
  });

  it('keeps a token that outlived its client dead, even when a client takes its client_id again', async () => {
    const inspector = await t.admin.serviceClient('checked', '', { client_id: 'inspector', introspect_any_token: true });
    const first = await t.admin.serviceClient('checked', '', { client_id: 'phoenix' });
    const token = await accessToken(t.app, 'checked', first);
    const firstId = await internalIdOf('phoenix');
    expect((await introspect(t.app, 'checked', inspector, token)).json()).toMatchObject({ active: true, client_id: 'phoenix' });

    await deleteClient('phoenix');
    // The row a concurrent token write leaves behind: the deletion's statement did not see it.
    const survivor = await storeToken(t.store, { realm: 'checked', clientId: 'phoenix' });
    await setClientOf(survivor, firstId);
    expect((await introspect(t.app, 'checked', inspector, survivor)).json()).toEqual({ active: false });

    await t.admin.serviceClient('checked', '', { client_id: 'phoenix' });
    const secondId = await internalIdOf('phoenix');
    expect(secondId).not.toBe(firstId);
    expect((await introspect(t.app, 'checked', inspector, survivor)).json()).toEqual({ active: false });
    // The same row under the new client's internal id would be live: the id is what decides.
    await setClientOf(survivor, secondId);
    expect((await introspect(t.app, 'checked', inspector, survivor)).json()).toMatchObject({ active: true, client_id: 'phoenix' });
  });

  it('writes a token of a client already gone without failing the tokens written with it, and never reads it', async () => {
    const kept = await t.admin.serviceClient('checked', '', { client_id: 'kept' });
    await t.admin.serviceClient('checked', '', { client_id: 'gone' });
    await deleteClient('gone');
    // Written together, they share a statement (src/store/statement-batcher.ts).
    const [orphan, sibling] = await Promise.all([
      storeToken(t.store, { realm: 'checked', clientId: 'gone' }),
      storeToken(t.store, { realm: 'checked', clientId: 'kept' }),
    ]);
    const rows = await t.store.db.query<{ client_id: string; client_internal_id: string | null }>(
      'SELECT client_id, client_internal_id::text FROM tokens WHERE token_hash = ANY ($1) ORDER BY client_id',
      [[sha256(orphan), sha256(sibling)]],
    );
    expect(rows.rows).toEqual([
      { client_id: 'gone', client_internal_id: null },
      { client_id: 'kept', client_internal_id: await internalIdOf('kept') },
    ]);
    expect(await t.store.tokens.find(sha256(orphan))).toBeUndefined();
    expect((await introspect(t.app, 'checked', kept, sibling)).json()).toMatchObject({ active: true, client_id: 'kept' });
  });

  it('neither rotates nor holds a refresh token whose client is not the one it was issued to', async () => {
    await t.admin.request('POST', '/realms/checked/users', { username: 'ann', password: 'correct horse battery' });
    const user = await t.store.db.query<{ id: string }>("SELECT id FROM users WHERE realm = 'checked' AND username = 'ann'");
    await t.admin.serviceClient('checked', '', { client_id: 'app', grant_types: ['client_credentials', 'refresh_token'] });
    const refresh = await storeToken(t.store, { realm: 'checked', clientId: 'app', kind: 'refresh_token', userId: user.rows[0]!.id });
    await setClientOf(refresh, '0');

    expect(await t.store.tokens.rotateRefreshToken(sha256(refresh), 'checked', 'app', [], undefined)).toBeUndefined();
    const held = await t.store.transaction((tx) => tx.tokens.holdRefreshToken(sha256(refresh), 'checked', 'app'));
    expect(held).toBeUndefined();
    const row = await t.store.db.query<{ used: boolean }>('SELECT used_at IS NOT NULL AS used FROM tokens WHERE token_hash = $1', [sha256(refresh)]);
    expect(row.rows[0]!.used).toBe(false);

    // Under its own client's id, the same token is rotated.
    await setClientOf(refresh, await internalIdOf('app'));
    expect(await t.store.tokens.rotateRefreshToken(sha256(refresh), 'checked', 'app', [], undefined)).toMatchObject({ username: 'ann' });
  });
});

describe('migration 008', () => {
  it("gives the tokens of a database migrated before it their client's internal id, and drops the foreign key", async () => {
    const { db, dispose } = await createTestDb();
    try {
      await migrate(db, readMigrations().filter((migration) => migration.version < 8));
      await db.query("INSERT INTO realms (name) VALUES ('old')");
      await db.query(`INSERT INTO clients (realm, client_id, record) VALUES ('old', 'a', '{}'), ('old', 'b', '{}')`);
      await db.query(`INSERT INTO tokens (token_hash, realm, client_id, kind, grant_id, grant_type, subject, scope, expires_at)
                      SELECT decode(md5(c), 'hex'), 'old', c, 'access_token', gen_random_uuid(), 'client_credentials', c, '', now() + interval '1 hour'
                        FROM unnest(ARRAY['a', 'b']) AS c`);

      expect(await migrate(db)).toEqual(readMigrations().filter((migration) => migration.version >= 8).map((migration) => migration.name));

      const tokens = await db.query<{ client_id: string; matches: boolean }>(
        `SELECT t.client_id, t.client_internal_id = c.internal_id AS matches
           FROM tokens t JOIN clients c ON c.realm = t.realm AND c.client_id = t.client_id ORDER BY t.client_id`,
      );
      expect(tokens.rows).toEqual([
        { client_id: 'a', matches: true },
        { client_id: 'b', matches: true },
      ]);
      const keys = await db.query("SELECT 1 FROM pg_constraint WHERE conrelid = 'tokens'::regclass AND contype = 'f'");
      expect(keys.rowCount).toBe(0);
    } finally {
      await db.close();
      await dispose();
    }
  });
});
