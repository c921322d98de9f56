import type { Db } from '../../src/store/db.js';
import { createPgliteDb } from '../../src/store/pglite.js';

/**
 * Migrated PGlite databases, kept by each test worker and handed out again once emptied: starting
 * a PGlite from the migrated cluster costs about half a second of CPU, emptying its tables
 * (TRUNCATE … RESTART IDENTITY) a tenth of that. A database comes back when its application
 * closes it; it is handed out again only if nothing but rows changed: the schema, the session's
 * settings and its locks are compared with what they were when the database was made, and a
 * database that differs is closed instead.
 */
interface Pooled {
  db: Db;
  /** The tables, in one TRUNCATE statement. */
  truncate: string;
  /** SHAPE of the database as it was made. */
  shape: string;
}

/** Enough for the files that run several applications at once; the rest are closed. */
const MAX_IDLE = 4;
const idle: Pooled[] = [];

/**
 * What a test could change in a database besides its rows, as one digest: its relations (by name,
 * kind and number of columns); the catalogs of columns, constraints, indexes, triggers, defaults,
 * functions and types, by their number of rows and newest row (DDL writes rows there, TRUNCATE
 * does not); the session's settings; the locks it holds.
 */
const SHAPE = `SELECT md5(concat_ws('|',
  (SELECT string_agg(relname || ':' || relkind::text || ':' || relnatts, ',' ORDER BY oid) FROM pg_class),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_attribute),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_constraint),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_index),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_trigger),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_attrdef),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_proc),
  (SELECT count(*) || ':' || max(xmin::text::bigint) FROM pg_type),
  (SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM pg_settings WHERE source = 'session'),
  (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory')
)) AS shape`;

/** A migrated database with no rows but the migrations' own: a pooled one, or a new one from `template`. */
export async function leaseMigratedPglite(template: Blob | undefined): Promise<Db> {
  const pooled = idle.pop() ?? (await made(template));
  return lease(pooled);
}

async function made(template: Blob | undefined): Promise<Pooled> {
  const db = await createPgliteDb('memory://', template);
  const { rows } = await db.query<{ tables: string }>(
    `SELECT string_agg(format('%I', tablename), ', ') AS tables FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`,
  );
  return { db, truncate: `TRUNCATE ${rows[0]!.tables} RESTART IDENTITY CASCADE`, shape: await shapeOf(db) };
}

async function shapeOf(db: Db): Promise<string> {
  return (await db.query<{ shape: string }>(SHAPE)).rows[0]!.shape;
}

/**
 * The database as one application sees it. Its notifications stop when it is closed (the
 * subscriptions of PGlite stay, and would otherwise reach a closed application's caches); after
 * that, every use of it fails, as a closed PGlite's would.
 */
function lease(pooled: Pooled): Db {
  const { db } = pooled;
  let open = true;
  const handlers: { onMessage: ((payload: string) => void) | undefined }[] = [];
  const checked = <T>(use: () => Promise<T>): Promise<T> => (open ? use() : Promise.reject(new Error('PGlite is closed')));
  return {
    kind: 'pglite',
    listening: true,
    query: (sql, params) => checked(() => db.query(sql, params)),
    exec: (script) => checked(() => db.exec(script)),
    transaction: (fn) => checked(() => db.transaction(fn)),
    listen: (channel, onMessage, onReset) =>
      checked(() => {
        const handler = { onMessage: onMessage as ((payload: string) => void) | undefined };
        handlers.push(handler);
        return db.listen(channel, (payload) => handler.onMessage?.(payload), onReset);
      }),
    async close() {
      if (!open) return;
      open = false;
      for (const handler of handlers) handler.onMessage = undefined;
      await giveBack(pooled);
    },
  };
}

async function giveBack(pooled: Pooled): Promise<void> {
  try {
    await pooled.db.exec(pooled.truncate);
    if (idle.length < MAX_IDLE && (await shapeOf(pooled.db)) === pooled.shape) {
      idle.push(pooled);
      return;
    }
  } catch {
    // A database that cannot be emptied is not handed out again.
  }
  await pooled.db.close();
}
