import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { type Db, type Queryable, type QueryResult, classifyDbError } from './db.js';
import { initdbCopy } from './pglite-initdb.js';

/**
 * The embedded adapter: PostgreSQL compiled to WebAssembly, in memory or in `dataDir`. A new
 * database starts from `template` (a tarball of PGlite's `dumpDataDir`), or else from the build's
 * copy of initdb's cluster (./pglite-initdb.ts), or else from initdb.
 */
export async function createPgliteDb(dataDir: string, template?: Blob): Promise<Db> {
  let location = dataDir;
  if (dataDir !== 'memory://') {
    location = join(dataDir, 'pglite');
    mkdirSync(location, { recursive: true, mode: 0o700 });
  }
  const isNew = location === 'memory://' || !existsSync(join(location, 'PG_VERSION'));
  const copy = isNew ? (template ?? initdbCopy()) : undefined;
  const db = await PGlite.create(location, copy ? { loadDataDir: copy } : {});

  const queryable = (target: PGlite | Transaction): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await guard(() => target.query<Row>(sql, params as unknown[]));
      return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
    },
    async exec(script: string): Promise<void> {
      await guard(() => target.exec(script));
    },
  });

  return {
    kind: 'pglite',
    ...queryable(db),
    listening: true, // one process: every notification is our own
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    async listen(channel, onMessage) {
      await db.listen(channel, onMessage);
    },
    close: () => db.close(),
  };
}

/**
 * PGlite attaches the query's parameters to its errors; they may be secrets and must not
 * reach a log. The error is then classified as the pg adapter's are.
 */
async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof Error) {
      for (const key of ['params', 'query', 'queryOptions']) {
        if (key in error) Object.defineProperty(error, key, { value: undefined, enumerable: false });
      }
    }
    throw classifyDbError(error);
  }
}
