import type { Db } from './db.js';

/**
 * The ids of accepted assertions (a JWT's `jti`, a SAML assertion's `ID`), per trusted issuer,
 * kept until the assertion would have expired: RFC 7523 §3 item 7 and RFC 7522 §3 item 7.
 */
export class UsedAssertionStore {
  constructor(private readonly db: Db) {}

  /**
   * Records the use; false when the assertion was used already and may still be live (a
   * replay). A row past its time that the cleanup has not deleted yet counts as gone.
   */
  async use(realm: string, issuerId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO used_assertions (realm, issuer_id, assertion_id, expires_at) VALUES ($1, $2::uuid, $3, $4)
       ON CONFLICT (realm, issuer_id, assertion_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE used_assertions.expires_at < now()
       RETURNING assertion_id`,
      [realm, issuerId, assertionId, expiresAt],
    );
    return result.rows.length === 1;
  }
}
