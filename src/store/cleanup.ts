import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from './db.js';
import { endSessionsStatement } from './session-endings.js';

/**
 * Deleting expired rows in small batches keeps each statement short, so that the cleanup
 * never holds locks or I/O long enough to be felt by the token endpoint; instances running
 * it together skip each other's rows.
 */
const deleteBatch = (table: string, expired = 'expires_at < now()') =>
  `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE ${expired} LIMIT $1 FOR UPDATE SKIP LOCKED))`;

const BATCH_STATEMENTS = [
  deleteBatch('tokens'),
  deleteBatch('signing_keys'),
  // An expired session ends as any other does: its clients are sent their logout tokens (src/store/session-endings.ts).
  endSessionsStatement('ctid = ANY (ARRAY(SELECT ctid FROM sessions WHERE expires_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED))'),
  deleteBatch('authorization_transactions'),
  deleteBatch('pushed_requests'),
  deleteBatch('revoked_jwts'),
  deleteBatch('attempt_counters', 'window_ends_at < now()'),
  deleteBatch('spent_assertions'),
  deleteBatch('webauthn_challenges'),
  deleteBatch('broker_states'),
  // A device or address unseen for 90 days is new again to the risk step.
  deleteBatch('known_sign_in_sources', "last_seen_at < now() - interval '90 days'"),
  deleteBatch('initial_access_tokens'),
  // A ticket counts against its person's and address's limits for 15 minutes, however short it lived.
  deleteBatch('tickets', "expires_at < now() AND created_at < now() - interval '15 minutes'"),
  // An address's mails count for an hour (src/store/mail-allowances.ts).
  deleteBatch('mail_allowances', "sent_at[cardinality(sent_at)] < now() - interval '1 hour'"),
  // Each audit event expires after its realm's audit_event_lifetime (src/audit/audit-trail.ts).
  deleteBatch('audit_events'),
  // A delivered or given-up outbox entry is kept a week, for the record of what was sent.
  deleteBatch('outbox', "(delivered_at IS NOT NULL OR abandoned_at IS NOT NULL) AND created_at < now() - interval '7 days'"),
  // A used code is kept a day past its expiry, so that a late second use still revokes its grant.
  deleteBatch('authorization_codes', "expires_at < now() - interval '1 day'"),
  // Likewise a device code or auth_req_id, so that a late poll hears expired_token.
  deleteBatch('pending_authorizations', "expires_at < now() - interval '1 day'"),
  // The anchor of a metadata document client (migrations/024_metadata_document_clients.sql)
  // that no consent or live token needs, its document not fetched for three days: no instance
  // still uses it (a document is kept a day at most), and what the flows wrote of it has expired
  // (its deletion takes any rest with it). A few at a time: each one's foreign keys are checked.
  `DELETE FROM clients WHERE ctid = ANY (ARRAY(
     SELECT c.ctid FROM clients c
      WHERE c.metadata_document AND c.updated_at < now() - interval '3 days'
        AND NOT EXISTS (SELECT 1 FROM consents k WHERE k.realm = c.realm AND k.client_id = c.client_id)
        AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.client_internal_id = c.internal_id AND t.expires_at > now())
      LIMIT LEAST($1, 50) FOR UPDATE SKIP LOCKED))`,
];

export interface CleanupOptions {
  intervalMs: number;
  batchSize: number;
  /** Pause between two batches of one run. */
  pauseMs: number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
}

export const DEFAULT_CLEANUP: CleanupOptions = { intervalMs: 60_000, batchSize: 500, pauseMs: 20 };

/** Deletes every expired row, a batch at a time; returns how many were deleted. */
export async function deleteExpired(db: Db, options: Pick<CleanupOptions, 'batchSize' | 'pauseMs'>, stopped = () => false): Promise<number> {
  let total = 0;
  for (const statement of BATCH_STATEMENTS) {
    for (;;) {
      const { rowCount } = await db.query(statement, [options.batchSize]);
      total += rowCount;
      if (rowCount < options.batchSize || stopped()) break;
      await sleep(options.pauseMs);
    }
  }
  return total;
}

/** Runs `deleteExpired` periodically until the returned stop function is called. */
export function startCleanup(db: Db, options: CleanupOptions): () => Promise<void> {
  let stopping = false;
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return; // the previous run is still deleting
    running = deleteExpired(db, options, () => stopping)
      .then((deleted) => {
        if (deleted > 0) options.logger?.debug({ deleted }, 'expired rows deleted');
      })
      .catch((error: unknown) => options.logger?.warn({ err: error }, 'expired row cleanup failed'))
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs);
  timer.unref();
  return async () => {
    stopping = true;
    clearInterval(timer);
    await running;
  };
}
