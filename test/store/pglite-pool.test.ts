import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/bootstrap.js';
import type { Db } from '../../src/store/db.js';
import { ADMIN_TOKEN } from '../support/app.js';
import { createTestDb, testStoreKind } from '../support/store.js';

/** The PGlite instance behind a Db: its start time differs from one instance to the next. */
const instanceOf = async (db: Db) => (await db.query<{ started: Date }>('SELECT pg_postmaster_start_time() AS started')).rows[0]!.started.getTime();
const count = async (db: Db, table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

describe.skipIf(testStoreKind() === 'postgres')('the test databases handed out again (test/support/pglite-pool.ts)', () => {
  it('hands out a database again with none of the rows of its last application', async () => {
    const first = (await createTestDb({ migrated: true })).db;
    const { store } = await prepare(first, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN });
    expect(await count(first, 'realms')).toBe(1);
    const instance = await instanceOf(first);
    await store.close();

    const again = (await createTestDb({ migrated: true })).db;
    expect(await instanceOf(again)).toBe(instance);
    expect(await count(again, 'realms')).toBe(0);
    expect(await count(again, 'signing_keys')).toBe(0);
    expect(await count(again, 'server_state')).toBe(0);
    expect(await count(again, 'schema_migrations')).toBeGreaterThan(0);
    await again.close();
  });

  it('refuses every use of a database once its application has closed it', async () => {
    const db = (await createTestDb({ migrated: true })).db;
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toThrow('PGlite is closed');
    await expect(db.transaction(async () => {})).rejects.toThrow('PGlite is closed');
  });

  it('closes a database whose schema or session settings changed, rather than handing it out again', async () => {
    for (const change of ['CREATE TABLE left_behind (x int)', 'CREATE INDEX ON realms (created_at)', "SET statement_timeout = '5s'"]) {
      const changed = (await createTestDb({ migrated: true })).db;
      const instance = await instanceOf(changed);
      await changed.exec(change);
      await changed.close();

      const next = (await createTestDb({ migrated: true })).db;
      expect(await instanceOf(next), change).not.toBe(instance);
      expect((await next.query(`SELECT to_regclass('left_behind') AS t`)).rows[0]).toEqual({ t: null });
      await next.close();
    }
  });
});
