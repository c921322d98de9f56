import type { Db } from './db.js';
import { CLIENT_EXISTS } from './token-records.js';

/** Who makes an admin call with a `root` access token, and what they hold now (CONTRACT.md §14). */
export interface AdminCaller {
  /** The token's `sub`: the person's id, or the client's id for client credentials. */
  readonly sub: string;
  readonly clientId: string;
  /** The subject's `root` roles: a person's own and their groups', or the client's `roles`. */
  readonly roles: readonly string[];
  /**
   * The `realmgate-*` roles held by what the call names in `root`: the person (by username) or
   * the group. Read only when asked, to judge a change that could give them.
   */
  readonly targetRoles: readonly string[];
}

/** What an admin call names in `root`, whose `realmgate-*` roles its check needs. */
export interface AdminTarget {
  username?: string | undefined;
  group?: string | undefined;
}

/**
 * Grants whose tokens never stand for an admin: their subject is named by an assertion or by
 * another token, not by the person's or the client's own credentials.
 */
const NOT_ADMIN_GRANTS = [
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:token-exchange',
];

const ADMIN_ROLE = `LIKE 'realmgate-%'`;

/**
 * One statement per admin call: the live bearer access token of `root` for the admin resource
 * ($2), issued to a client that still exists, of a person who exists and is enabled, with its
 * subject's roles as they are now; and the `realmgate-*` roles of the call's target ($3 username,
 * $4 group in `root`; null: none). Nothing is cached, so a revocation, a disable or
 * a role removal counts at the next call on every instance.
 */
const FIND_CALLER = `
  SELECT t.subject AS sub, t.client_id,
         CASE WHEN t.user_id IS NULL
           THEN ARRAY(SELECT r FROM clients c, jsonb_array_elements_text(coalesce(c.record->'roles', '[]'::jsonb)) AS r
                       WHERE c.internal_id = t.client_internal_id)
           ELSE ARRAY(SELECT ur.role FROM user_roles ur WHERE ur.realm = t.realm AND ur.user_id = t.user_id
                      UNION
                      SELECT gr.role FROM user_groups ug JOIN group_roles gr ON gr.realm = ug.realm AND gr.group_name = ug.group_name
                       WHERE ug.realm = t.realm AND ug.user_id = t.user_id)
         END AS roles,
         ARRAY(SELECT ur.role FROM users tu JOIN user_roles ur ON ur.realm = tu.realm AND ur.user_id = tu.id
                WHERE $3::text IS NOT NULL AND tu.realm = 'root' AND lower(tu.username) = lower($3) AND ur.role ${ADMIN_ROLE}
               UNION
               SELECT gr.role FROM users tu JOIN user_groups ug ON ug.realm = tu.realm AND ug.user_id = tu.id
                      JOIN group_roles gr ON gr.realm = ug.realm AND gr.group_name = ug.group_name
                WHERE $3::text IS NOT NULL AND tu.realm = 'root' AND lower(tu.username) = lower($3) AND gr.role ${ADMIN_ROLE}
               UNION
               SELECT gr.role FROM group_roles gr WHERE $4::text IS NOT NULL AND gr.realm = 'root' AND gr.group_name = $4 AND gr.role ${ADMIN_ROLE}) AS target_roles
    FROM tokens t
   WHERE t.token_hash = $1 AND t.realm = 'root' AND t.kind = 'access_token'
     AND t.revoked_at IS NULL AND t.used_at IS NULL AND t.expires_at > now()
     AND t.aud @> jsonb_build_array($2::text)
     AND t.cnf_x5t_s256 IS NULL AND t.cnf_jkt IS NULL AND t.act IS NULL
     AND t.grant_type <> ALL ($5::text[])
     AND (CASE WHEN t.user_id IS NULL THEN t.grant_type = 'client_credentials'
               ELSE EXISTS (SELECT 1 FROM users u WHERE u.realm = t.realm AND u.id = t.user_id AND u.enabled) END)
     AND ${CLIENT_EXISTS}`;

interface CallerRow {
  sub: string;
  client_id: string;
  roles: string[];
  target_roles: string[];
}

/** The callers of the admin API that present `root` access tokens. */
export class AdminCallerStore {
  constructor(private readonly db: Db) {}

  async find(tokenHash: Buffer, audience: string, target: AdminTarget): Promise<AdminCaller | undefined> {
    const result = await this.db.query<CallerRow>(FIND_CALLER, [
      tokenHash,
      audience,
      target.username ?? null,
      target.group ?? null,
      NOT_ADMIN_GRANTS,
    ]);
    const row = result.rows[0];
    return row && { sub: row.sub, clientId: row.client_id, roles: row.roles, targetRoles: row.target_roles };
  }
}
