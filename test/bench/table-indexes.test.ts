import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withIndexesBuiltAfter } from '../../bench/scale/table-indexes.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { accessToken, introspect } from '../support/oauth.js';

/**
 * The scale bench loads its token rows without the table's indexes and builds them after
 * (bench/scale/table-indexes.ts): the table the server then reads must be the migrated one.
 */
describe("the scale bench's load with indexes built after", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('bulk');
  });
  afterAll(async () => {
    await t?.close();
  });

  const indexesOfTokens = async () =>
    (await t.store.db.query<{ definition: string }>("SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'tokens'::regclass ORDER BY 1"))
      .rows.map((row) => row.definition);

  it('loads without them, then builds the same indexes, and the server reads the table as before', async () => {
    const migrated = await indexesOfTokens();
    expect(migrated.some((definition) => definition.includes('UNIQUE INDEX tokens_pkey'))).toBe(true);
    const svc = await t.admin.serviceClient('bulk', 'api');
    const before = await accessToken(t.app, 'bulk', svc);

    const during = await withIndexesBuiltAfter(t.store.db, 'tokens', indexesOfTokens);

    expect(during.result).toEqual([]);
    expect(await indexesOfTokens()).toEqual(migrated);
    const after = await accessToken(t.app, 'bulk', svc);
    for (const token of [before, after]) expect((await introspect(t.app, 'bulk', svc, token)).json()).toMatchObject({ active: true });
    const duplicate = t.store.db.query('INSERT INTO tokens SELECT * FROM tokens LIMIT 1');
    await expect(duplicate).rejects.toThrow(/duplicate key/);
  });

  it('fails when the indexes it built differ from those it found', async () => {
    const extra = withIndexesBuiltAfter(t.store.db, 'tokens', () => t.store.db.query('CREATE INDEX tokens_scope ON tokens (scope)'));
    await expect(extra).rejects.toThrow(/differ from the migrated ones/);
    await t.store.db.query('DROP INDEX tokens_scope');
  });
});
