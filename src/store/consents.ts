import type { Db } from './db.js';
import { StatementParams } from './statement.js';
import { ACCESS_TOKEN_LIFETIME_SQL, type DenialRow, type RevokedJwts, denyGrantsStatement } from './revoked-jwts.js';

/** A client a person allowed, as their account page lists it. */
export interface ConsentedClient {
  readonly clientId: string;
  /** The client's `client_name`, when it has one. */
  readonly clientName: string | undefined;
  readonly scope: readonly string[];
  readonly grantedAt: Date;
}

/**
 * Denies the JWT access tokens of a person's grants to a client ($1 realm, $2 user id,
 * $3 client id): the grants with stored tokens, and those whose code was exchanged recently
 * enough for a JWT access token of it to live (such a grant may have nothing stored).
 */
const DENY_CLIENT_GRANTS = denyGrantsStatement(`
  grants AS (
    SELECT realm, grant_id AS id FROM tokens WHERE realm = $1 AND user_id = $2::uuid AND client_id = $3
    UNION
    SELECT c.realm, c.grant_id FROM authorization_codes c JOIN realms r ON r.name = c.realm
     WHERE c.realm = $1 AND c.user_id = $2::uuid AND c.client_id = $3 AND c.used_at IS NOT NULL
       AND c.expires_at > now() - make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL}))`);

/** What a person allows a client. */
export interface Consent {
  realm: string;
  userId: string;
  clientId: string;
  scope: readonly string[];
  /** RFC 8707: the resources the client's tokens may be for; none when it asked for none. */
  resources?: readonly string[] | undefined;
}

/** What a person allowed a client before, as /authorize compares a request with it. */
export interface Consented {
  readonly scope: readonly string[];
  readonly resources: readonly string[];
}

/** The columns of a `consents` row as `Consented`, or NULL without one (`alias`: the table's alias in the query). */
export const consentedOf = (alias: string): string => `CASE WHEN ${alias}.scope IS NULL THEN NULL ELSE json_build_object('scope', ${alias}.scope, 'resources', ${alias}.resources) END`;

/**
 * The statement that adds `scope` and `resources` to what the person allowed the client before;
 * with `from`, once per row of that CTE (none: nothing is granted).
 */
export function grantConsent(params: StatementParams, consent: Consent, from?: string): string {
  return `INSERT INTO consents (realm, user_id, client_id, scope, resources)
          SELECT ${params.add(consent.realm)}, ${params.add(consent.userId)}::uuid, ${params.add(consent.clientId)}, ${params.add(consent.scope)}::text[],
                 ${params.add(consent.resources ?? [])}::text[]
          ${from ? `FROM ${from}` : ''}
          ON CONFLICT (realm, user_id, client_id) DO UPDATE
            SET scope = ARRAY(SELECT DISTINCT unnest(consents.scope || excluded.scope) ORDER BY 1),
                resources = ARRAY(SELECT DISTINCT unnest(consents.resources || excluded.resources) ORDER BY 1),
                granted_at = now()`;
}

/** The scopes a person allowed a client, remembered so that consent is asked only for new ones. */
export class ConsentStore {
  constructor(
    private readonly db: Db,
    private readonly revokedJwts: RevokedJwts,
  ) {}

  /** Undefined when the person never allowed the client anything. */
  async granted(realm: string, userId: string, clientId: string): Promise<string[] | undefined> {
    const result = await this.db.query<{ scope: string[] }>(
      'SELECT scope FROM consents WHERE realm = $1 AND user_id = $2 AND client_id = $3',
      [realm, userId, clientId],
    );
    return result.rows[0]?.scope;
  }

  /** Adds `scope` to what the person allowed the client before. */
  async grant(realm: string, userId: string, clientId: string, scope: readonly string[]): Promise<void> {
    const params = new StatementParams();
    await this.db.query(grantConsent(params, { realm, userId, clientId, scope }), params.values);
  }

  /** The clients the person allowed, the most recent first. */
  async listForUser(realm: string, userId: string): Promise<ConsentedClient[]> {
    const result = await this.db.query<{ client_id: string; client_name: string | null; scope: string[]; granted_at: Date }>(
      `SELECT c.client_id, nullif(cl.record->>'client_name', '') AS client_name, c.scope, c.granted_at
         FROM consents c JOIN clients cl ON cl.realm = c.realm AND cl.client_id = c.client_id
        WHERE c.realm = $1 AND c.user_id = $2
        ORDER BY c.granted_at DESC, c.client_id`,
      [realm, userId],
    );
    return result.rows.map((row) => ({
      clientId: row.client_id,
      clientName: row.client_name ?? undefined,
      scope: row.scope,
      grantedAt: row.granted_at,
    }));
  }

  /**
   * Withdraws what the person allowed the client, and everything the client holds from it,
   * in one transaction: the consent, every stored token of the person for the client, the
   * JWT access tokens of those grants (denied on every instance), codes not yet exchanged,
   * and device or CIBA requests approved but not yet collected. The next authorization asks
   * for consent again. False when the person had allowed the client nothing.
   *
   * Requests and codes are ended first, and the tokens revoked once the person's row is
   * locked: the order in which issuance locks them (src/store/tokens.ts insertTokens), so that
   * a token being written for the client is committed first, and revoked here, or not written.
   */
  async revoke(realm: string, userId: string, clientId: string): Promise<boolean> {
    const denied = await this.db.transaction(async (tx) => {
      const params = [realm, userId, clientId];
      const deleted = await tx.query('DELETE FROM consents WHERE realm = $1 AND user_id = $2 AND client_id = $3 RETURNING 1', params);
      if (deleted.rows.length === 0) return undefined;
      await tx.query(
        `UPDATE pending_authorizations SET status = 'denied'
          WHERE realm = $1 AND user_id = $2 AND client_id = $3 AND status = 'approved'`,
        params,
      );
      await tx.query('DELETE FROM authorization_codes WHERE realm = $1 AND user_id = $2 AND client_id = $3 AND used_at IS NULL', params);
      await tx.query('SELECT 1 FROM users WHERE realm = $1 AND id = $2::uuid FOR UPDATE', [realm, userId]);
      await tx.query(
        'UPDATE tokens SET revoked_at = now() WHERE realm = $1 AND user_id = $2 AND client_id = $3 AND revoked_at IS NULL',
        params,
      );
      const denials = await tx.query<DenialRow>(DENY_CLIENT_GRANTS, params);
      return denials.rows;
    });
    if (denied === undefined) return false;
    this.revokedJwts.remember(denied);
    return true;
  }
}
