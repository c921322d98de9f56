import pg from 'pg';
import type { DatabaseActivity } from './load.js';
import { atExit } from '../main.js';
import { createThrowawayDatabase } from '../postgres.js';
import { log } from '../processes.js';

/** A throwaway database for one part: dropped when the part ends, or however the bench ends. */
export async function partDatabase(serverUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const database = await createThrowawayDatabase(serverUrl);
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    await database.drop();
  };
  atExit(drop);
  const name = new URL(database.url).pathname.slice(1);
  log(`throwaway database ${name}`);
  return { url: database.url, name, drop };
}

/**
 * A connection of the bench's own, for bulk writes and for watching the database: no
 * statement timeout (a bulk insert takes minutes), unlike the server's pool.
 */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  // A connection ended by the server (the bench's own cleanup dropping a database or stopping
  // its cluster on ctrl-c) fails the statement it runs; unheard, the error would end the bench
  // before the rest of its cleanup.
  client.on('error', (error) => log(`connection to ${new URL(url).pathname.slice(1)} lost: ${error.message}`));
  await client.connect();
  return client;
}

/** Table and index bytes of `tokens`. */
export async function tokensTableMb(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ mb: number }>(`SELECT (pg_total_relation_size('tokens') / 1048576)::int AS mb`);
  return rows[0]!.mb;
}

/** Index scans of a table so far: with PK lookups only, how many reads reached the database. */
export async function indexScans(client: pg.Client, table: string): Promise<number> {
  // A backend reports its counters when it goes idle, at most once a second (PostgreSQL 15).
  const { rows } = await client.query<{ scans: string | null }>('SELECT idx_scan AS scans FROM pg_stat_user_tables WHERE relname = $1', [table]);
  return Number(rows[0]?.scans ?? 0);
}

/** The counters of database `name` in pg_stat_database (load.ts, DatabaseActivity). */
export async function databaseActivity(client: pg.Client, name: string): Promise<DatabaseActivity> {
  const { rows } = await client.query<Record<keyof DatabaseActivity, string>>(
    `SELECT xact_commit AS commits, tup_inserted AS inserted, tup_updated AS updated, tup_deleted AS deleted,
            blks_hit AS "bufferHits", blks_read AS reads
       FROM pg_stat_database WHERE datname = $1`,
    [name],
  );
  const row = rows[0];
  if (!row) throw new Error(`no statistics for database ${name}`);
  return {
    commits: Number(row.commits),
    inserted: Number(row.inserted),
    updated: Number(row.updated),
    deleted: Number(row.deleted),
    bufferHits: Number(row.bufferHits),
    reads: Number(row.reads),
  };
}
