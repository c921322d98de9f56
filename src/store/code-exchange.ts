import type { AuthorizationDetail } from '../records/authorization-details.js';
import type { NewAuditEvent } from './audit-events.js';
import { type AuthorizationCode, CODE_COLUMNS, type CodeRow, toCode } from './authorization-codes.js';
import type { Db } from './db.js';
import type { TokenKind } from './token-records.js';
import { WRITTEN_TOKEN_COLUMNS } from './token-statements.js';
import { USER_COLUMNS, type User, type UserRow, toUser } from './users.js';

/** A code as its client presents it at the token endpoint (RFC 6749 §4.1.3). */
export interface PresentedCode {
  hash: Buffer;
  realm: string;
  clientId: string;
  /** `redirect_uri`, when sent. */
  redirectUri: string | undefined;
  /** The S256 challenge of the `code_verifier` sent (RFC 7636 §4.6): none when none was sent, '' for a malformed one, which matches no challenge. */
  challenge: string | undefined;
  /** The thumbprint of the key of the request's DPoP proof, which a code of `dpop_jkt` needs (RFC 9449 §10); none without a proof. */
  keyThumbprint: string | undefined;
}

/**
 * The tokens a code is exchanged for, as the issuer plans them before the code is read: all
 * but what the code decides (its grant, person, sign-in and scope).
 */
export interface CodeTokens {
  /** Each with the DPoP key it is bound to, if any (RFC 9449 §5: a confidential client's refresh token is not). */
  tokens: ReadonlyArray<{ hash: Buffer; kind: TokenKind; expiresAt: Date; keyThumbprint: string | undefined }>;
  clientInternalId: string | null;
  issuedAt: Date;
  certificateThumbprint: string | undefined;
  /** The audiences asked at the exchange (RFC 8707 §2.2), within the code's resources; none: the code's. */
  audience: readonly string[] | undefined;
  /** The scopes an access token for the asked `audience` may carry (src/resources/targets.ts); undefined: any. */
  audienceScopes: readonly string[] | undefined;
  /** Whether the client's `allowed_audiences` hold every asked value: a code authorized for no resource may be asked only those. */
  audienceAllowed: boolean;
  /** RFC 9396 §6.1: the authorization details asked at the exchange, each one the code's; none: the code's. */
  authorizationDetails: readonly AuthorizationDetail[] | undefined;
  /**
   * `token.issued`: the statement adds the code's grant and scope to its details, and `id_token`
   * to their `tokens` when the scope holds `openid`.
   */
  event: NewAuditEvent;
}

/**
 * What presenting a code came to: its tokens written; the code used up but nothing written
 * (which check failed, or neither when its person is gone or disabled); the grant of a code used before
 * (to revoke); or nothing (unknown, expired, or another client's code).
 */
export type CodeExchange =
  /** `accessWithin`: the scopes its access token could carry, for its audiences (undefined: any). */
  | { issued: AuthorizationCode; user: User; accessWithin: string[] | undefined }
  | { refused: AuthorizationCode; redirectUriMatches: boolean; verifierMatches: boolean; keyMatches: boolean; targetMatches: boolean; detailsMatch: boolean }
  | { replayedGrantId: string }
  | undefined;

const prefixed = (alias: string, columns: readonly string[], prefix: string) => columns.map((column) => `${alias}.${column} AS ${prefix}${column}`).join(', ');

/**
 * One statement uses the code up (the database decides between concurrent uses: only one
 * `UPDATE … WHERE used_at IS NULL` returns the row), and writes its tokens and their event
 * when the presented redirect URI, verifier and DPoP key match it, the audiences asked are within its resources (RFC 8707
 * §2.2; a code of none: within the client's `allowed_audiences`), and its person still exists and is enabled, locked
 * FOR KEY SHARE until the tokens commit as src/store/token-statements.ts insertTokens explains.
 * A check that fails still spends the code. The challenges are compared in SQL, not in constant
 * time: the code is spent by the first attempt, so that a second one has nothing to learn.
 */
const EXCHANGE = `
  WITH used AS (
    UPDATE authorization_codes c SET used_at = now()
     WHERE c.code_hash = $1 AND c.realm = $2 AND c.client_id = $3 AND c.used_at IS NULL AND c.expires_at > now()
    RETURNING ${CODE_COLUMNS.split(',').map((column) => `c.${column.trim()}`).join(', ')},
              (c.redirect_uri = $4::text OR (NOT c.redirect_uri_given AND $4::text IS NULL)) AS redirect_uri_matches,
              c.code_challenge IS NOT DISTINCT FROM $5::text AS verifier_matches,
              (c.dpop_jkt IS NULL OR c.dpop_jkt IS NOT DISTINCT FROM $19::text) AS key_matches,
              ($20::text[] IS NULL OR CASE WHEN c.resources IS NULL THEN $22::boolean ELSE $20::text[] <@ c.resources END) AS target_matches,
              -- RFC 9396 §6.1: each entry asked equals one the code holds (jsonb equality, not containment: no field dropped).
              ($23::jsonb IS NULL OR NOT EXISTS (SELECT 1 FROM jsonb_array_elements($23::jsonb) AS asked(entry)
                                                  WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(c.authorization_details) AS held(entry)
                                                                     WHERE held.entry = asked.entry))) AS details_match
  ),
  person AS (
    SELECT ${prefixed('u', USER_COLUMNS, 'person_')} FROM used JOIN users u ON u.realm = used.realm AND u.id = used.user_id
     WHERE used.redirect_uri_matches AND used.verifier_matches AND used.key_matches AND used.target_matches AND used.details_match AND u.enabled
       FOR KEY SHARE OF u
  ),
  -- The scopes the access token may carry (src/resources/targets.ts scopesWithin): for the audiences asked, as the
  -- endpoint found them; else for the code's resources, unless one of them lists none (or is registered no more).
  within AS (
    SELECT CASE
             WHEN $20::text[] IS NOT NULL THEN $21::text[]
             WHEN used.resources IS NULL THEN NULL::text[]
             WHEN EXISTS (SELECT 1 FROM unnest(used.resources) AS a(identifier)
                            LEFT JOIN resources r ON r.realm = used.realm AND r.identifier = a.identifier
                           WHERE r.scopes IS NULL) THEN NULL::text[]
             ELSE ARRAY(SELECT DISTINCT s FROM resources r, unnest(r.scopes) AS s WHERE r.realm = used.realm AND r.identifier = ANY (used.resources))
           END AS scopes
      FROM used
  ),
  issued AS (
    INSERT INTO tokens (${WRITTEN_TOKEN_COLUMNS})
    SELECT decode(t.hash, 'hex'), used.realm, used.client_id, $6::bigint, t.kind, used.grant_id, $7::timestamptz, 'authorization_code',
           used.user_id::text, used.user_id,
           -- The access token narrowed to its audiences' scopes, in the code's order; the refresh token keeps the grant's.
           CASE WHEN t.kind = 'access_token' AND within.scopes IS NOT NULL
                THEN array_to_string(ARRAY(SELECT n.s FROM unnest(string_to_array(used.scope, ' ')) WITH ORDINALITY AS n(s, i)
                                            WHERE n.s = ANY (within.scopes) ORDER BY n.i), ' ')
                ELSE used.scope END,
           $7::timestamptz, t.expires_at::timestamptz, used.auth_time, used.amr,
           coalesce(used.acr, '0'), used.sid, $8::text, NULL,
           -- The access token is for the audiences asked, else the code's resources; the refresh token keeps the grant's.
           CASE WHEN t.kind = 'access_token' THEN coalesce($9::jsonb, to_jsonb(used.resources)) ELSE coalesce(to_jsonb(used.resources), $9::jsonb) END,
           t.jkt, used.asked_claims,
           CASE WHEN t.kind = 'access_token' THEN coalesce($23::jsonb, used.authorization_details) ELSE used.authorization_details END
      FROM used, person, within, unnest($10::text[], $11::text[], $12::text[], $18::text[]) AS t(hash, kind, expires_at, jkt)
  ),
  recorded AS (
    INSERT INTO audit_events (realm, occurred_at, type, client_id, user_id, address, details, expires_at)
    SELECT used.realm, $13::timestamptz, $14, used.client_id, used.user_id::text, $15,
           $16::jsonb || jsonb_build_object(
             'grant_id', used.grant_id, 'scope', used.scope,
             'tokens', ($16::jsonb -> 'tokens') || CASE WHEN 'openid' = ANY (string_to_array(used.scope, ' ')) THEN '["id_token"]'::jsonb ELSE '[]'::jsonb END),
           $17::timestamptz
      FROM used, person
  )
  SELECT used.*, person.*, within.scopes AS access_within FROM used LEFT JOIN person ON true LEFT JOIN within ON true`;

/** A code of this client used before: its replay is marked, and its grant answered for revocation. */
const REPLAYED = `
  UPDATE authorization_codes SET replayed_at = now()
   WHERE code_hash = $1 AND realm = $2 AND client_id = $3 AND used_at IS NOT NULL
  RETURNING grant_id`;

type ExchangeRow = CodeRow & {
  redirect_uri_matches: boolean;
  verifier_matches: boolean;
  key_matches: boolean;
  target_matches: boolean;
  details_match: boolean;
  access_within: string[] | null;
} & Record<string, unknown>;

/**
 * Exchanges a code for its tokens in one statement (EXCHANGE); only when it was not used,
 * a second statement tells a replay from a code that never was.
 */
export async function exchangeCode(db: Db, presented: PresentedCode, planned: CodeTokens): Promise<CodeExchange> {
  const { event } = planned;
  const result = await db.query<ExchangeRow>(EXCHANGE, [
    presented.hash,
    presented.realm,
    presented.clientId,
    presented.redirectUri ?? null,
    presented.challenge ?? null,
    planned.clientInternalId,
    planned.issuedAt,
    planned.certificateThumbprint ?? null,
    planned.audience ? JSON.stringify(planned.audience) : null,
    planned.tokens.map((token) => token.hash.toString('hex')),
    planned.tokens.map((token) => token.kind),
    planned.tokens.map((token) => token.expiresAt.toISOString()),
    event.occurredAt,
    event.type,
    event.address ?? null,
    JSON.stringify(event.details),
    event.expiresAt,
    planned.tokens.map((token) => token.keyThumbprint ?? null),
    presented.keyThumbprint ?? null,
    planned.audience ? [...planned.audience] : null,
    planned.audienceScopes ? [...planned.audienceScopes] : null,
    planned.audienceAllowed,
    planned.authorizationDetails ? JSON.stringify(planned.authorizationDetails) : null,
  ]);
  const row = result.rows[0];
  if (row) {
    const code = toCode(row);
    if (row.person_id != null) return { issued: code, user: toUser(unprefixed(row, 'person_')), accessWithin: row.access_within ?? undefined };
    return {
      refused: code,
      redirectUriMatches: row.redirect_uri_matches,
      verifierMatches: row.verifier_matches,
      keyMatches: row.key_matches,
      targetMatches: row.target_matches,
      detailsMatch: row.details_match,
    };
  }
  const replayed = await db.query<{ grant_id: string }>(REPLAYED, [presented.hash, presented.realm, presented.clientId]);
  return replayed.rows[0] && { replayedGrantId: replayed.rows[0].grant_id };
}

function unprefixed(row: Record<string, unknown>, prefix: string): UserRow {
  return Object.fromEntries(USER_COLUMNS.map((column) => [column, row[`${prefix}${column}`]])) as unknown as UserRow;
}
