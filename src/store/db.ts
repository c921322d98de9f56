import { StoreUnavailableError, UnstorableTextError } from '../errors.js';

/**
 * What the SQL store needs from a database: the PostgreSQL pool and the embedded PGlite
 * store each implement it in a thin adapter, so every statement is written once.
 *
 * Conventions the SQL follows so that both adapters return the same values:
 * no int8 in results (cast counts to int), bytea comes back as a Uint8Array or Buffer
 * (use `bytes()`), timestamps as Date.
 */
export interface Queryable {
  /** One statement with $n parameters (prepared and reused where the adapter can). */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** A script of several statements without parameters: migrations. */
  exec(script: string): Promise<void>;
}

export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** True for the Db of one transaction's connection (`transactionDb`): there, writes go at once rather than batched. */
  readonly inTransaction?: boolean;
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to a NOTIFY channel. `onReset` runs whenever notifications may have been
   * missed (the listening connection was lost), so that caches can drop what they hold.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<void>;
  /** True while notifications are being received; caches bypass themselves otherwise. */
  readonly listening: boolean;
  close(): Promise<void>;
}

/**
 * The Db of one transaction's connection, for the repositories of `Store.transaction`: its
 * statements go on that connection, so that they commit or roll back with the transaction,
 * and a transaction begun on it is part of that one. Notifications are the database's.
 */
export function transactionDb(db: Db, connection: Queryable): Db {
  return {
    kind: db.kind,
    inTransaction: true,
    query: (sql, params) => connection.query(sql, params),
    exec: (script) => connection.exec(script),
    transaction: (fn) => fn(connection),
    listen: (channel, onMessage, onReset) => db.listen(channel, onMessage, onReset),
    get listening() {
      return db.listening;
    },
    close: () => Promise.reject(new Error('a transaction ends when its work does, not by closing its connection')),
  };
}

/**
 * How long a request waits for the database before it answers 503 (docs/operations.md
 * "The database"): for a connection (a new one, or a free one of the pool), for a statement
 * (PostgreSQL cancels it), and for any answer at all, when the server or the network stops
 * answering without closing the connection. A write queued behind others waits no longer.
 */
export const DATABASE_TIMEOUTS = { connectMs: 5_000, statementMs: 10_000, answerMs: 12_000 } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `::uuid` accepts the value: input that is no uuid names nothing, rather than failing the statement. */
export const isUuid = (value: string): boolean => UUID.test(value);

export function bytes(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError('expected a bytea value');
}

/**
 * A bytea value in memory of its own, for what a cache keeps: the driver's buffer is a slice
 * of a shared block, and so is a copy made by Buffer.from (a slice of Node's 8 KiB pool), so
 * that a cached row would keep the whole block alive.
 */
export function ownedBytes(value: unknown): Buffer {
  const source = bytes(value);
  const copy = Buffer.allocUnsafeSlow(source.length);
  source.copy(copy);
  return copy;
}

/**
 * What a database error means for the request, as both adapters report it: the database
 * is unreachable, or the input held text PostgreSQL cannot store; else the error itself.
 */
export function classifyDbError(error: unknown): unknown {
  if (isConnectionFailure(error)) return new StoreUnavailableError('the database is unavailable', { cause: error });
  const code = (error as { code?: unknown } | undefined)?.code;
  // 22021: NUL in a text value; 22P05: \u0000 in a jsonb value.
  if (code === '22021' || code === '22P05') return new UnstorableTextError('the input holds a NUL character', { cause: error });
  return error;
}

/**
 * SQLSTATEs that mean "not now" rather than "never": the request did nothing, and the same
 * request may succeed in a moment (503 with Retry-After).
 */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '57014', // query_canceled: statement_timeout (src/store/pg.ts)
  '40001', // serialization_failure: the transaction was rolled back
  '40P01', // deadlock_detected: the transaction was rolled back
]);

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** PostgreSQL SQLSTATE classes and client errors that mean "the database is not reachable now". */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08')) return true; // connection_exception
    if (code.startsWith('53')) return true; // insufficient_resources: too many connections, out of memory, disk full
    if (UNAVAILABLE_STATES.has(code) || NETWORK_ERRORS.has(code)) return true;
  }
  // node-postgres's own: a connection lost, not made in time, or a query unanswered in time.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Client was closed and is not queryable/i.test(
    error.message,
  );
}
