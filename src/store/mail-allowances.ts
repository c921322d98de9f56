import type { Db } from './db.js';

/** The mails one recipient address of a realm may receive in an hour (CONTRACT.md §7): registration, verification and reset together. */
export const MAIL_LIMIT = { perRecipient: 5, windowSeconds: 60 * 60 } as const;

const WITHIN_WINDOW = `s > now() - make_interval(secs => ${MAIL_LIMIT.windowSeconds})`;

/**
 * Takes one mail of the address's hour, or nothing when it had its share. The row of the
 * address is locked by the upsert while the condition is judged against its latest version,
 * so that concurrent requests on any number of instances never pass the limit; the times
 * older than the hour are dropped as a new one is added (a sliding window).
 */
const TAKE = `INSERT INTO mail_allowances AS m (realm, recipient, sent_at) VALUES ($1, lower($2), ARRAY[now()])
  ON CONFLICT (realm, recipient) DO UPDATE
    SET sent_at = ARRAY(SELECT s FROM unnest(m.sent_at) AS s WHERE ${WITHIN_WINDOW}) || now()
  WHERE (SELECT count(*) FROM unnest(m.sent_at) AS s WHERE ${WITHIN_WINDOW}) < ${MAIL_LIMIT.perRecipient}
  RETURNING true AS taken`;

/**
 * How many mails each recipient address was sent, counted in the database before each is
 * sent, so that no one can have a server flood an address they do not own, from any number
 * of addresses or instances.
 */
export class MailAllowances {
  constructor(private readonly db: Db) {}

  /** Whether a mail to `recipient` (ignoring case) may go out now; true counts it. */
  async take(realm: string, recipient: string): Promise<boolean> {
    const result = await this.db.query<{ taken: boolean }>(TAKE, [realm, recipient]);
    return result.rows.length > 0;
  }
}
