import type { Db } from './db.js';

/**
 * The ids of accepted assertions, each spent once per issuer: the `jti` of JWT assertions
 * (client assertions, JWT bearer grants, CIBA request objects: RFC 7523 §3 item 7) and the `ID`
 * of SAML bearer assertions (RFC 7522 §3 item 7). A row is kept until its assertion could no
 * longer be accepted; the cleanup deletes it after that.
 */
export class SpentAssertionStore {
  constructor(private readonly db: Db) {}

  /**
   * Spends `id` of `issuer`; false when it was spent already and the assertion that spent it
   * may still be live (a replay). Decided by one statement, so that concurrent requests and
   * instances agree. A row whose time has passed but that the cleanup has not deleted yet counts
   * as gone, so that the answer does not depend on when the cleanup ran.
   */
  async use(realm: string, issuer: string, id: string, expiresAt: Date): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO spent_assertions (realm, issuer, id, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (realm, issuer, id) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE spent_assertions.expires_at < now()
       RETURNING id`,
      [realm, issuer, id, expiresAt],
    );
    return result.rows.length === 1;
  }
}
