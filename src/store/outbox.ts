import type { Db } from './db.js';

/** A delivery owed to a URL outside (migrations/032_outbox_and_session_clients.sql). */
export interface OutboxEntry {
  readonly id: string;
  /** How it is sent (src/outbox/deliverer.ts OutboxSender). */
  readonly kind: string;
  readonly realm: string;
  readonly target: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** Tries so far, this one included once claimed. */
  readonly attempts: number;
  readonly createdAt: Date;
}

interface EntryRow {
  id: string;
  kind: string;
  realm: string;
  target: string;
  payload: Record<string, unknown>;
  attempts: number;
  created_at: Date;
}

const toEntry = (row: EntryRow): OutboxEntry => ({
  id: row.id,
  kind: row.kind,
  realm: row.realm,
  target: row.target,
  payload: row.payload,
  attempts: row.attempts,
  createdAt: row.created_at,
});

const PENDING = 'delivered_at IS NULL AND abandoned_at IS NULL';

/**
 * The outbox's rows. Times come from the deliverer's clock (src/outbox/deliverer.ts), so that a
 * test moves through backoffs without waiting; a row queued by SQL is due at the database's now().
 */
export class OutboxStore {
  constructor(private readonly db: Db) {}

  /** Queues a delivery, due at once. */
  async queue(entry: { kind: string; realm: string; target: string; payload: Record<string, unknown> }): Promise<void> {
    await this.db.query('INSERT INTO outbox (kind, realm, target, payload) VALUES ($1, $2, $3, $4::jsonb)', [
      entry.kind,
      entry.realm,
      entry.target,
      JSON.stringify(entry.payload),
    ]);
  }

  /**
   * Up to `limit` entries due at `now`, each claimed until `leaseUntil`: no other instance takes
   * them meanwhile (rows another is claiming are skipped), and if this one dies they are due again then.
   * `now` counts in milliseconds, a row queued by SQL in microseconds: a row due within `now`'s
   * millisecond is due (else a delivery queued in the same millisecond as a tick waited for the next).
   */
  async claim(now: Date, leaseUntil: Date, limit: number): Promise<OutboxEntry[]> {
    const result = await this.db.query<EntryRow>(
      `UPDATE outbox o SET next_at = $2, attempts = o.attempts + 1
        WHERE o.id IN (SELECT id FROM outbox WHERE ${PENDING} AND next_at < $1::timestamptz + interval '1 millisecond' ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING o.id, o.kind, o.realm, o.target, o.payload, o.attempts, o.created_at`,
      [now, leaseUntil, limit],
    );
    return result.rows.map(toEntry);
  }

  /** Acknowledged with a 2xx: never sent again, whoever claimed it last. */
  async delivered(id: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE outbox SET delivered_at = $2 WHERE id = $1::uuid AND ${PENDING}`, [id, at]);
  }

  /**
   * A try that failed: due again at `retryAt`, or given up (none). Only the try that holds the
   * claim (`attempts`) decides: one whose lease ran out, and that another instance took over,
   * changes nothing.
   */
  async failed(id: string, attempts: number, failure: string, retryAt: Date | undefined, at: Date): Promise<void> {
    await this.db.query(
      `UPDATE outbox SET last_failure = $3, next_at = coalesce($4, next_at), abandoned_at = CASE WHEN $4::timestamptz IS NULL THEN $5::timestamptz END
        WHERE id = $1::uuid AND attempts = $2 AND ${PENDING}`,
      [id, attempts, failure, retryAt ?? null, at],
    );
  }

  /** How many deliveries are waiting, by kind. */
  async pendingByKind(): Promise<Array<{ kind: string; count: number }>> {
    const result = await this.db.query<{ kind: string; count: number }>(`SELECT kind, count(*)::int AS count FROM outbox WHERE ${PENDING} GROUP BY kind`);
    return result.rows;
  }
}
