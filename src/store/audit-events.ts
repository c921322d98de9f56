import { epochMs, fromEpochMs } from './epoch-ms.js';
import { StatementBatcher } from './statement-batcher.js';
import type { Db } from './db.js';
import type { StatementParams } from './statement.js';

/** An audit event as it is written (src/audit/audit-trail.ts). */
export interface NewAuditEvent {
  realm: string;
  type: string;
  occurredAt: Date;
  clientId: string | undefined;
  userId: string | undefined;
  address: string | undefined;
  details: Readonly<Record<string, unknown>>;
  expiresAt: Date;
}

export interface StoredAuditEvent {
  /** A bigint, as a string. */
  id: string;
  realm: string;
  type: string;
  occurredAt: Date;
  clientId: string | undefined;
  userId: string | undefined;
  address: string | undefined;
  details: Record<string, unknown>;
}

/** Where a page of events ends: the next page holds the events older than this one. */
export interface AuditEventCursor {
  occurredAt: Date;
  id: string;
}

/** Every condition given must hold. */
export interface AuditEventFilter {
  realm: string;
  types?: readonly string[] | undefined;
  clientId?: string | undefined;
  userId?: string | undefined;
  /** Inclusive. */
  since?: Date | undefined;
  /** Exclusive. */
  until?: Date | undefined;
  before?: AuditEventCursor | undefined;
  limit: number;
}

interface AuditEventRow {
  id: string;
  realm: string;
  type: string;
  occurred_at: Date;
  client_id: string | null;
  user_id: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

/**
 * Inserts any number of events: parallel arrays from parameter $first on, one element per row,
 * as text, times as epoch milliseconds (src/store/epoch-ms.ts; src/store/tokens.ts does the
 * same), and perhaps more arrays (`extra`) that `where` filters on. src/store/tokens.ts writes
 * a token's `token.issued` event in the token's statement.
 */
export function insertAuditEvents(first: number, extra: readonly string[] = [], where = ''): string {
  const columns = ['realm', 'occurred_at', 'type', 'client_id', 'user_id', 'address', 'details', 'expires_at', ...extra];
  const arrays = columns.map((_, i) => `$${first + i}::text[]`).join(', ');
  return `
  INSERT INTO audit_events (realm, occurred_at, type, client_id, user_id, address, details, expires_at)
  SELECT realm, ${fromEpochMs('occurred_at')}, type, client_id, user_id, address, details::jsonb, ${fromEpochMs('expires_at')}
    FROM unnest(${arrays}) AS e(${columns.join(', ')}) ${where}`;
}

/** The arrays of insertAuditEvents for these events, in its order. */
export function auditEventColumns(events: readonly NewAuditEvent[]): Array<Array<string | null>> {
  const column = (value: (event: NewAuditEvent) => string | null) => events.map(value);
  return [
    column((e) => e.realm),
    column((e) => epochMs(e.occurredAt)),
    column((e) => e.type),
    column((e) => e.clientId ?? null),
    column((e) => e.userId ?? null),
    column((e) => e.address ?? null),
    column((e) => JSON.stringify(e.details)),
    column((e) => epochMs(e.expiresAt)),
  ];
}

/** The statement that writes one event, in a statement of parts; with `where`, only when that condition holds. */
export function insertAuditEvent(params: StatementParams, event: NewAuditEvent, where?: string): string {
  return insertAuditEvents(params.addAll(auditEventColumns([event])), [], where ? `WHERE ${where}` : '');
}

const INSERT_MANY = insertAuditEvents(1);

/** The pause between two statements of audit events (StatementBatcherOptions.pauseMs). */
const AUDIT_PAUSE_MS = 10;

/**
 * The `audit_events` table. Rows are appended in batches (src/store/statement-batcher.ts): many
 * events of concurrent requests go in one statement. Expired rows are left out of reads and
 * deleted by src/store/cleanup.ts.
 */
export class AuditEventStore {
  private readonly writer: StatementBatcher<NewAuditEvent>;

  constructor(private readonly db: Db) {
    // One statement at a time: the audit trail must not take connections from the token endpoint.
    // Its rows are written after their requests have answered, so that they can wait a little
    // for others to share their statement (a stateless token's event is all it writes).
    this.writer = new StatementBatcher((events) => this.insertMany(events), { maxBatch: 500, maxInFlight: 1, pauseMs: AUDIT_PAUSE_MS });
  }

  /** Resolves once the row is committed. */
  append(event: NewAuditEvent): Promise<void> {
    return this.writer.add(event);
  }

  private async insertMany(events: readonly NewAuditEvent[]): Promise<void> {
    await this.db.query(INSERT_MANY, auditEventColumns(events));
  }

  /** One unexpired event of the realm, by its id (a webhook's delivery reads it as it sends). */
  async byId(realm: string, id: string): Promise<StoredAuditEvent | undefined> {
    if (!/^\d{1,19}$/.test(id)) return undefined;
    const result = await this.db.query<AuditEventRow>(
      `SELECT id::text AS id, realm, type, occurred_at, client_id, user_id, address, details
         FROM audit_events WHERE realm = $1 AND id = $2::bigint AND expires_at > now()`,
      [realm, id],
    );
    return result.rows[0] && storedOf(result.rows[0]);
  }

  /**
   * The realm's unexpired events that match, newest first. Only the conditions given are in
   * the statement, so that each query is planned for the index of its filters.
   */
  async list(filter: AuditEventFilter): Promise<StoredAuditEvent[]> {
    const params: unknown[] = [filter.realm];
    const param = (value: unknown) => `$${params.push(value)}`;
    const conditions = ['realm = $1', 'expires_at > now()'];
    if (filter.types) conditions.push(`type = ANY (${param(filter.types)}::text[])`);
    if (filter.clientId !== undefined) conditions.push(`client_id = ${param(filter.clientId)}`);
    if (filter.userId !== undefined) conditions.push(`user_id = ${param(filter.userId)}`);
    if (filter.since) conditions.push(`occurred_at >= ${param(filter.since.toISOString())}::timestamptz`);
    if (filter.until) conditions.push(`occurred_at < ${param(filter.until.toISOString())}::timestamptz`);
    if (filter.before) {
      const { occurredAt, id } = filter.before;
      conditions.push(`(occurred_at, id) < (${param(occurredAt.toISOString())}::timestamptz, ${param(id)}::bigint)`);
    }
    const result = await this.db.query<AuditEventRow>(
      `SELECT id::text AS id, realm, type, occurred_at, client_id, user_id, address, details
         FROM audit_events
        WHERE ${conditions.join(' AND ')}
        ORDER BY occurred_at DESC, id DESC
        LIMIT ${param(filter.limit)}`,
      params,
    );
    return result.rows.map(storedOf);
  }
}

const storedOf = (row: AuditEventRow): StoredAuditEvent => ({
  id: row.id,
  realm: row.realm,
  type: row.type,
  occurredAt: row.occurred_at,
  clientId: row.client_id ?? undefined,
  userId: row.user_id ?? undefined,
  address: row.address ?? undefined,
  details: row.details,
});
