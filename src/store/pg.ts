import pg from 'pg';
import type { Logger } from 'pino';
import { type Db, type Queryable, type QueryResult, classifyDbError } from './db.js';

export interface PgDbOptions {
  /** Schema to use instead of `public` (the test suite isolates each file in its own). */
  searchPath?: string;
  poolSize?: number;
  logger?: Logger;
}

const LISTEN_RETRY_MS = 1000;

/** The PostgreSQL adapter: a `pg` pool whose statements are prepared once per connection. */
export function createPgDb(connectionString: string, options: PgDbOptions = {}): Db {
  const connection: pg.ClientConfig = {
    connectionString,
    connectionTimeoutMillis: 5000,
    statement_timeout: 10_000,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 20, idleTimeoutMillis: 30_000 });
  // An idle client whose server went away emits here; the next query reconnects.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'idle database connection lost'));

  // Each distinct SQL text gets a statement name, so PostgreSQL parses and plans it once per connection.
  const statementNames = new Map<string, string>();
  const prepared = (text: string, values: readonly unknown[]): pg.QueryConfig => {
    let name = statementNames.get(text);
    if (!name) {
      name = `rg${statementNames.size}`;
      statementNames.set(text, name);
    }
    return { name, text, values: values as unknown[] };
  };

  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await guard(() => client.query(prepared(sql, params)));
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(script: string): Promise<void> {
      await guard(() => client.query(script));
    },
  });

  let listener: pg.Client | undefined;
  let listening = false;
  let closed = false;

  async function listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<void> {
    const connect = async (): Promise<void> => {
      const client = new pg.Client(connection);
      client.on('notification', (message) => {
        if (message.channel === channel) onMessage(message.payload ?? '');
      });
      const lost = (error?: Error): void => {
        if (listener !== client) return;
        listener = undefined;
        listening = false;
        onReset();
        client.end().catch(() => {});
        if (closed) return;
        options.logger?.warn({ err: error }, 'notification connection lost; reconnecting');
        setTimeout(retry, LISTEN_RETRY_MS).unref();
      };
      client.on('error', lost);
      client.on('end', () => lost());
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      listener = client;
      listening = true;
      onReset(); // anything published while we were not listening is unknown
    };
    const retry = (): void => {
      if (closed) return;
      connect().catch(() => setTimeout(retry, LISTEN_RETRY_MS).unref());
    };
    await guard(connect);
  }

  return {
    kind: 'postgres',
    ...queryable(pool),
    get listening() {
      return listening;
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await guard(() => pool.connect());
      let broken: Error | undefined;
      try {
        await guard(() => client.query('BEGIN'));
        const result = await fn(queryable(client));
        await guard(() => client.query('COMMIT'));
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    listen,
    async close(): Promise<void> {
      closed = true;
      listening = false;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => {});
      await pool.end();
    },
  };
}

async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw classifyDbError(error);
  }
}
