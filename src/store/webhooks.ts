import { type Db, bytes } from './db.js';

/** A realm's receiver of audit events (migrations/042_webhooks.sql); its secret stays sealed here. */
export interface Webhook {
  readonly realm: string;
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  /** The signing secret, sealed with the master key (src/outbox/webhook.ts opens it). */
  readonly secretSealed: Buffer;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewWebhook = Pick<Webhook, 'realm' | 'name' | 'url' | 'events' | 'secretSealed'>;

interface WebhookRow {
  realm: string;
  name: string;
  url: string;
  events: string[];
  secret_sealed: Uint8Array;
  created_at: Date;
  updated_at: Date;
}

const toWebhook = (row: WebhookRow): Webhook => ({
  realm: row.realm,
  name: row.name,
  url: row.url,
  events: row.events,
  secretSealed: bytes(row.secret_sealed),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const COLUMNS = 'realm, name, url, events, secret_sealed, created_at, updated_at';

/**
 * The `webhooks` table. Deliveries are queued by the database itself as audit events are
 * written (the trigger of migrations/042_webhooks.sql), so nothing here caches: a webhook saved
 * on one instance is used by the next event written on any.
 */
export class WebhookStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates or replaces the webhook; answers it and whether it was created. Deliveries still owed
   * to it go to its new URL, in the same statement (they are signed with its secret as they go).
   */
  async put(webhook: NewWebhook): Promise<{ webhook: Webhook; created: boolean }> {
    const result = await this.db.query<WebhookRow & { created: boolean }>(
      `WITH saved AS (
         INSERT INTO webhooks AS w (realm, name, url, events, secret_sealed) VALUES ($1, $2, $3, $4::text[], $5)
         ON CONFLICT (realm, name) DO UPDATE SET url = excluded.url, events = excluded.events, secret_sealed = excluded.secret_sealed, updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS created),
       moved AS (
         UPDATE outbox SET target = $3 WHERE kind = 'webhook' AND realm = $1 AND payload->>'webhook' = $2
            AND delivered_at IS NULL AND abandoned_at IS NULL AND target <> $3)
       SELECT * FROM saved`,
      [webhook.realm, webhook.name, webhook.url, [...webhook.events], webhook.secretSealed],
    );
    const row = result.rows[0]!;
    return { webhook: toWebhook(row), created: row.created };
  }

  async get(realm: string, name: string): Promise<Webhook | undefined> {
    const result = await this.db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE realm = $1 AND name = $2`, [realm, name]);
    return result.rows[0] && toWebhook(result.rows[0]);
  }

  async list(realm: string): Promise<Webhook[]> {
    const result = await this.db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE realm = $1 ORDER BY name`, [realm]);
    return result.rows.map(toWebhook);
  }

  /**
   * Deletes the webhook and, in the same statement, the deliveries still owed to it: a receiver
   * removed is sent nothing more. False when there was none.
   */
  async delete(realm: string, name: string): Promise<boolean> {
    const result = await this.db.query<{ name: string }>(
      `WITH gone AS (DELETE FROM webhooks WHERE realm = $1 AND name = $2 RETURNING name),
            owed AS (DELETE FROM outbox WHERE kind = 'webhook' AND realm = $1 AND payload->>'webhook' = $2
                       AND delivered_at IS NULL AND abandoned_at IS NULL AND EXISTS (SELECT 1 FROM gone))
       SELECT name FROM gone`,
      [realm, name],
    );
    return result.rows.length > 0;
  }
}
