import type { Db } from './db.js';

/**
 * The jti of every accepted client assertion (RFC 7523 §3 item 7), kept until the assertion
 * would have expired; the cleanup deletes the rows after that.
 */
export class ClientAssertionStore {
  constructor(private readonly db: Db) {}

  /**
   * Records a client's use of `jti`; false when it was used already and the assertion that
   * used it may still be live (a replay). A row whose time has passed but that the cleanup
   * has not deleted yet counts as gone, so the answer does not depend on when cleanup ran.
   */
  async use(realm: string, clientId: string, jti: string, expiresAt: Date): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO client_assertion_jtis (realm, client_id, jti, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (realm, client_id, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE client_assertion_jtis.expires_at < now()
       RETURNING jti`,
      [realm, clientId, jti, expiresAt],
    );
    return result.rows.length === 1;
  }
}
