import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { createPgDb } from '../../src/store/pg.js';
import { createPgliteDb } from '../../src/store/pglite.js';
import { initdbCopy } from '../../src/store/pglite-initdb.js';
import { clockFunctionsBeforeMigrations, joinClock } from './clock.js';
import { leaseMigratedPglite } from './pglite-pool.js';

export const testStoreKind = (): 'pglite' | 'postgres' => (process.env.TEST_STORE === 'postgres' ? 'postgres' : 'pglite');

export interface TestDb {
  db: Db;
  /** Options for a second adapter or a server process on the same database. */
  databaseUrl: string | undefined;
  searchPath: string | undefined;
  /** Drops what the test created (its PostgreSQL schema). */
  dispose(): Promise<void>;
}

let initdbCluster: Blob | undefined;
let migratedCluster: Blob | undefined;

/**
 * A fresh, empty database: an in-memory PGlite (a copy of the cluster that the PGlite project's
 * global setup made with initdb, test/support/pglite-template.ts), or a new schema of
 * TEST_DATABASE_URL. `migrated`: on PGlite, the copy that the global setup migrated, for
 * databases that `prepare` would migrate anyway (on PostgreSQL, `prepare` migrates the schema);
 * the worker's earlier ones are emptied and handed out again (./pglite-pool.ts).
 * `clock`: its time moves with test/support/clock.ts's `testClock` until it is disposed.
 */
export async function createTestDb(options: { migrated?: boolean; clock?: boolean } = {}): Promise<TestDb> {
  const url = process.env.TEST_DATABASE_URL;
  if (testStoreKind() === 'pglite' || !url) {
    const db = options.migrated ? await leaseMigratedPglite(migratedTemplate()) : await createPgliteDb('memory://', initdbTemplate());
    const leave = options.clock ? joinClock() : () => {};
    return { db, databaseUrl: undefined, searchPath: undefined, dispose: async () => leave() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const clock = options.clock ? clockFunctionsBeforeMigrations(schema) : undefined;
  await withAdminClient(url, (client) => client.query(`CREATE SCHEMA ${schema};${clock?.script ?? ''}`));
  const db = createPgDb(url, { searchPath: clock?.searchPath ?? schema, poolSize: 5 });
  const leave = clock ? joinClock({ db, schema }) : () => {};
  return {
    db,
    databaseUrl: url,
    searchPath: clock?.searchPath ?? schema,
    dispose: async () => {
      leave();
      await withAdminClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
    },
  };
}

/** The global setup's clusters, read once per worker (a Blob is immutable: every database loads the same one). */
function initdbTemplate(): Blob | undefined {
  const dir = inject('pgliteTemplate');
  initdbCluster ??= dir ? initdbCopy(dir) : undefined;
  return initdbCluster;
}

function migratedTemplate(): Blob | undefined {
  const path = inject('pgliteMigratedTemplate');
  migratedCluster ??= path ? new Blob([readFileSync(path)]) : undefined;
  return migratedCluster ?? initdbTemplate();
}

/** Runs fn on a connection of its own to the server of `url`: creating and dropping databases and schemas. */
export async function withAdminClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
