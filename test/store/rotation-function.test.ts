import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { ROTATION_ARITY, ROTATION_FUNCTION_BODY } from '../../src/store/token-statements.js';
import { createTestDb } from '../support/store.js';

/**
 * A refresh token's rotation runs in the function `rotate_refresh_tokens`, which a migration
 * wrote (migrations/044_refresh_rotation.sql), while its statements are written, and explained,
 * in src/store/token-statements.ts: the two must be the same, or a change to how tokens are
 * inserted would reach every grant but the refresh.
 */
describe('the rotation function of the database', () => {
  let db: Db;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ db, dispose } = await createTestDb());
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    await dispose?.();
  });

  const words = (sql: string) => sql.replace(/\s+/g, ' ').trim();

  it('has the body of ROTATION_FUNCTION_BODY, and its arity', async () => {
    const found = await db.query<{ body: string; arguments: string; volatility: string; language: string }>(
      `SELECT p.prosrc AS body, pg_get_function_identity_arguments(p.oid) AS arguments, p.provolatile AS volatility, l.lanname AS language
         FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.proname = 'rotate_refresh_tokens' AND p.pronamespace = current_schema()::regnamespace`,
    );
    expect(found.rows).toHaveLength(1);
    const [fn] = found.rows;
    expect(words(fn!.body)).toBe(words(ROTATION_FUNCTION_BODY));
    expect(fn!.arguments).toBe(Array.from({ length: ROTATION_ARITY }, () => 'text[]').join(', '));
    // VOLATILE: each of its statements takes a snapshot of its own, which the lock before the rotation needs.
    expect(fn!.volatility).toBe('v');
    expect(fn!.language).toBe('plpgsql');
  });
});
