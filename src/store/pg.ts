import pg from 'pg';
import type { Logger } from 'pino';
import { StoreUnavailableError } from '../errors.js';
import { DATABASE_TIMEOUTS, type Db, type Queryable, type QueryResult, classifyDbError } from './db.js';

export interface PgDbOptions {
  /** Schema to use instead of `public` (the test suite isolates each file in its own). */
  searchPath?: string;
  poolSize?: number;
  logger?: Logger;
}

const LISTEN_RETRY_MS = 1000;

/** node-postgres reads `query_timeout` of each query's config too; its types do not say so. */
type BoundedQuery = pg.QueryConfig & { query_timeout: number };

/** The PostgreSQL adapter: a `pg` pool whose statements are prepared once per connection. */
export function createPgDb(connectionString: string, options: PgDbOptions = {}): Db {
  const connection: pg.ClientConfig = {
    connectionString,
    connectionTimeoutMillis: DATABASE_TIMEOUTS.connectMs,
    statement_timeout: DATABASE_TIMEOUTS.statementMs,
    // Notices a peer gone without a word on idle connections, the listening one included.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 20, idleTimeoutMillis: 30_000 });
  // An idle client whose server went away emits here; the next query reconnects.
  pool.on('error', (error) => options.logger?.warn({ err: loggable(error) }, 'idle database connection lost'));

  // Each distinct SQL text gets a statement name, so PostgreSQL parses and plans it once per connection.
  const statementNames = new Map<string, string>();
  const prepared = (text: string, values: readonly unknown[]): BoundedQuery => {
    let name = statementNames.get(text);
    if (!name) {
      name = `rg${statementNames.size}`;
      statementNames.set(text, name);
    }
    return { name, text, values: values as unknown[], query_timeout: DATABASE_TIMEOUTS.answerMs };
  };
  /** A statement of the transaction's own (BEGIN, COMMIT), bounded like the others. */
  const control = (text: string): BoundedQuery => ({ text, query_timeout: DATABASE_TIMEOUTS.answerMs });

  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await guard(() => client.query(prepared(sql, params)));
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    },
    // Scripts are migrations: no limit on how long the answer takes (src/store/migrate.ts).
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
        options.logger?.warn({ err: loggable(error) }, 'notification connection lost; reconnecting');
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
      // The pool listens for errors of idle connections only: a connection lost between two
      // statements of this transaction would otherwise be an unhandled 'error' that ends the
      // process. Its next statement fails instead.
      const lost = (error: Error): void => {
        broken = error;
      };
      client.on('error', lost);
      try {
        await guard(() => client.query(control('BEGIN')));
        const result = await fn(queryable(client));
        await guard(() => client.query(control('COMMIT')));
        return result;
      } catch (error) {
        if (error instanceof StoreUnavailableError) {
          // The connection is lost or stuck: a ROLLBACK would wait behind it. Closing it
          // rolls the transaction back.
          broken = error;
          throw error;
        }
        await client.query(control('ROLLBACK')).catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.removeListener('error', lost);
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

/** What the log needs of a connection error: pg-pool attaches the whole client (kilobytes) to it. */
function loggable(error: Error | undefined): { message: string; code?: unknown } | undefined {
  return error && { message: error.message, code: (error as { code?: unknown }).code };
}

async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw classifyDbError(error);
  }
}
