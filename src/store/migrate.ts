import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

/** Same depth from src/store and dist/store. */
const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Arbitrary, fixed: every instance takes the same advisory lock before migrating. */
export const MIGRATION_LOCK = 7_420_131;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .map((file) => ({
      version: Number.parseInt(file, 10),
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies the pending migrations in one transaction under a transaction-scoped advisory
 * lock, so that instances starting together migrate once and the others wait for it.
 * Returns the names applied by this call.
 *
 * Neither the wait for the lock nor a migration is bounded by the request timeouts
 * (src/store/pg.ts): an instance that starts while another migrates a large table waits for it.
 */
export async function migrate(db: Db, migrations = readMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL statement_timeout = 0; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(applied.rows.map((row) => row.version));
    const names: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      names.push(migration.name);
    }
    return names;
  });
}
