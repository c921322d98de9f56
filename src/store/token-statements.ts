import { insertAuditEvents } from './audit-events.js';
import { epochMs, fromEpochMs } from './epoch-ms.js';
import { denyGrantsStatement } from './revoked-jwts.js';
import { spendAssertions } from './spent-assertions.js';
import { CLIENT_EXISTS, type NewToken, TOKEN_COLUMNS } from './token-records.js';
import { USER_COLUMNS } from './users.js';

/** The statements of the token store (src/store/tokens.ts). */

/** The columns a new token's row is written with, in the order of the statements that write it. */
export const WRITTEN_TOKEN_COLUMNS = `token_hash, realm, client_id, client_internal_id, kind, grant_id, grant_started_at, grant_type, subject,
                      user_id, scope, issued_at, expires_at, auth_time, amr, acr, sid, cnf_x5t_s256, act, aud, cnf_jkt, asked_claims, authorization_details`;

export const INSERTED_COLUMNS = [
  'hash', 'realm', 'client_id', 'client_internal_id', 'kind', 'grant_id', 'grant_started_at', 'grant_type', 'subject', 'user_id', 'scope',
  'issued_at', 'expires_at', 'auth_time', 'amr', 'acr', 'sid', 'cnf', 'act', 'aud', 'jkt', 'asked_claims', 'authorization_details', 'password_of',
];

/**
 * One statement inserts any number of tokens: parallel arrays from parameter $first on, one
 * element per row (text for every type, so that both adapters pass them alike; times as epoch
 * milliseconds, src/store/epoch-ms.ts), and perhaps
 * more arrays (`extra`) that the condition `and` filters on. It answers the grant of each
 * token written.
 *
 * A person's token is written only while the person exists and is enabled, and, when it comes
 * from a password check (`password_of`), while that password is still theirs; their row is
 * locked (FOR KEY SHARE) until the token commits: whatever ends the person's grants
 * (src/store/users.ts, sessions.ts, consents.ts) locks that row FOR UPDATE first, so that it
 * either waits for the token and then revokes it, or goes first, and a deletion, a disable or a
 * password change leaves nothing to write (a lock that waited reads the row the end committed).
 */
export function insertTokens(first: number, extra: readonly string[] = [], and = ''): string {
  const columns = [...INSERTED_COLUMNS, ...extra];
  const arrays = columns.map((_, i) => `$${first + i}::text[]`).join(', ');
  return `
  INSERT INTO tokens (${WRITTEN_TOKEN_COLUMNS})
  SELECT decode(hash, 'hex'), realm, client_id, client_internal_id::bigint, kind, grant_id::uuid, ${fromEpochMs('grant_started_at')},
         grant_type, subject,
         user_id::uuid, scope, ${fromEpochMs('issued_at')}, ${fromEpochMs('expires_at')}, ${fromEpochMs('auth_time')},
         string_to_array(amr, ' '), acr, sid::uuid, cnf, act::jsonb, aud::jsonb, jkt, asked_claims::jsonb, authorization_details::jsonb
    FROM unnest(${arrays}) AS t(${columns.join(', ')})
   WHERE (t.user_id IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.realm = t.realm AND u.id = t.user_id::uuid AND u.enabled
                                         AND (t.password_of IS NULL OR encode(sha256(convert_to(u.password_hash, 'UTF8')), 'hex') = t.password_of)
                                         FOR KEY SHARE))
         ${and && `AND ${and}`}
  RETURNING grant_id`;
}

/**
 * The tokens of any number of grants, and the audit events of their issuance (`token.issued`),
 * in one statement: an event is committed with its tokens, or neither is. Each event names
 * its grant, or none when the grant stores no token. Answers the grants written.
 */
export const INSERT_MANY = `
  WITH issued AS (${insertTokens(1)}),
  events AS (${insertAuditEvents(1 + INSERTED_COLUMNS.length, ['event_of'], 'WHERE event_of IS NULL OR event_of::uuid IN (SELECT grant_id FROM issued)')})
  SELECT DISTINCT grant_id::text AS grant_id FROM issued`;

/** The columns naming the id a row's grant spends, and the condition that it has none or it was fresh in the `spent` part. */
const SPEND_OF = ['spend_realm', 'spend_issuer', 'spend_id'];
const SPEND_FRESH = '(spend_id IS NULL OR (spend_realm, spend_issuer, spend_id) IN (SELECT realm, issuer, id FROM spent))';

/**
 * INSERT_MANY where grants also spend an id each (the `jti` of the request's DPoP proof,
 * RFC 9449 §11.1), in the same statement and commit: $1–$4 the spends (spendAssertions, each
 * id once), then the tokens' columns with the realm, issuer and id each spends, then the events'
 * with the grant each tells of and the id it spends. A grant's tokens and event are written only if
 * its id was fresh. Answers the grants written, and the ids spent (rows without a grant_id).
 */
export const INSERT_MANY_SPENDING = `
  WITH spent AS (${spendAssertions(1)}),
  issued AS (${insertTokens(5, SPEND_OF, SPEND_FRESH)}),
  events AS (${insertAuditEvents(5 + INSERTED_COLUMNS.length + SPEND_OF.length, ['event_of', ...SPEND_OF], `WHERE (event_of IS NULL OR event_of::uuid IN (SELECT grant_id FROM issued)) AND ${SPEND_FRESH}`)})
  SELECT DISTINCT grant_id::text AS grant_id, NULL::text AS realm, NULL::text AS issuer, NULL::text AS id FROM issued
  UNION ALL SELECT NULL, realm, issuer, id FROM spent`;

/**
 * Rotates refresh tokens (RFC 9700 §4.14.2), any number in one statement, so that they share
 * a round trip and a commit. $1–$3: the presented tokens' hashes (hex), realms and clients;
 * then their successors' columns and the (1-based) presented token each succeeds; then the
 * `token.issued` events' columns and the presented token each tells of.
 *
 * The UPDATE decides between concurrent uses: only one `UPDATE … WHERE used_at IS NULL`
 * marks the row, and only a marked token's successors are inserted, in the same statement,
 * so that a token is never used without its successors written, nor the reverse. A token
 * whose person is gone or disabled is not used. The statement answers which presented tokens it used
 * (`n`), with their person's row (`person`), for the ID tokens.
 *
 * The realm and client are compared with IS NOT DISTINCT FROM, which no index serves, so that
 * the token is always found by its hash (the primary key): on a table without statistics yet
 * (a new database), the planner would otherwise as soon walk the client's every token.
 */
const ROTATE_MANY = `
  WITH used AS (
    UPDATE tokens t SET used_at = now()
      FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS p(hash, realm, client_id, n), users u
     WHERE t.token_hash = decode(p.hash, 'hex') AND (t.realm, t.client_id) IS NOT DISTINCT FROM (p.realm, p.client_id)
       AND t.kind = 'refresh_token'
       AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now() AND ${CLIENT_EXISTS}
       AND u.realm = t.realm AND u.id = t.user_id AND u.enabled
    RETURNING p.n::int AS n, u AS person
  ),
  successors AS (${insertTokens(4, ['successor_of'], 'successor_of::int IN (SELECT n FROM used)')}),
  events AS (${insertAuditEvents(4 + INSERTED_COLUMNS.length + 1, ['event_of'], 'WHERE event_of::int IN (SELECT n FROM used)')})
  SELECT n, person FROM used`;

/** Locks (FOR KEY SHARE) the people behind the tokens of these hashes ($1, hex), as insertTokens explains. */
const HOLD_PEOPLE = `
  SELECT 1 FROM users u
   WHERE (u.realm, u.id) IN (SELECT t.realm, t.user_id FROM tokens t
                              WHERE t.token_hash = ANY (ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)))
     FOR KEY SHARE OF u`;

/** How many arrays the rotation takes: ROTATE_MANY's parameters. */
export const ROTATION_ARITY = Math.max(...[...ROTATE_MANY.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));

/**
 * The body of the function `rotate_refresh_tokens`: the lock of the people behind the tokens,
 * then the rotation, two statements of one call, which is one round trip and one commit,
 * outside any BEGIN. The lock comes first, in a statement of its own, for two reasons: whatever
 * ends a person's grants locks the person, then their tokens, and the rotation takes them in
 * that order too (otherwise it holds the token's row while its successors wait for the person,
 * and deadlocks with the end, which waits for that row); and the rotation then starts after
 * whatever ended their grants while the lock waited, and sees it (insertTokens): in a VOLATILE
 * function under READ COMMITTED, each statement takes a snapshot of its own, as one sent alone
 * does. The function's parameters are the rotation's, by number. PL/pgSQL keeps the plans of
 * both statements for the session.
 *
 * migrations/044_refresh_rotation.sql holds a copy of it, and test/store/rotation-function.test.ts
 * checks that the database's function is this one: a change to ROTATE_MANY, insertTokens or
 * insertAuditEvents needs a migration that replaces the function.
 */
export const ROTATION_FUNCTION_BODY = `
#variable_conflict use_column
BEGIN
  ${HOLD_PEOPLE.trim().replace(/^SELECT/, 'PERFORM')};
  RETURN QUERY ${ROTATE_MANY.trim()};
END;
`;

/** The call of rotate_refresh_tokens with ROTATE_MANY's parameters; the people's columns as USER_COLUMNS. */
export const ROTATE = `
  SELECT r.n, ${USER_COLUMNS.map((column) => `(r.person).${column}`).join(', ')}
    FROM rotate_refresh_tokens(${Array.from({ length: ROTATION_ARITY }, (_, i) => `$${i + 1}::text[]`).join(', ')}) AS r`;

/** $1: the grant id, $2: its realm when known. */
export const REVOKE_GRANT = denyGrantsStatement(`
  revoked AS (UPDATE tokens SET revoked_at = now() WHERE grant_id = $1::text::uuid AND revoked_at IS NULL),
  grants AS (
    SELECT realm, $1::text AS id FROM tokens WHERE grant_id = $1::text::uuid
    UNION SELECT $2::text, $1::text WHERE $2::text IS NOT NULL)`);

/** $1: the hashes, hex-encoded. */
export const FIND_MANY = `
  SELECT encode(t.token_hash, 'hex') AS hash, ${TOKEN_COLUMNS}
    FROM tokens t
   WHERE t.token_hash = ANY (ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)) AND ${CLIENT_EXISTS}`;

/** The arrays of INSERTED_COLUMNS for these tokens, in that order. */
export function insertedColumns(tokens: readonly NewToken[]): Array<Array<string | null>> {
  const column = (value: (token: NewToken) => string | null) => tokens.map(value);
  return [
    column((t) => t.hash.toString('hex')),
    column((t) => t.realm),
    column((t) => t.clientId),
    column((t) => t.clientInternalId),
    column((t) => t.kind),
    column((t) => t.grantId),
    column((t) => epochMs(t.grantStartedAt ?? t.issuedAt)),
    column((t) => t.grantType),
    column((t) => t.subject),
    column((t) => t.userId ?? null),
    column((t) => t.scope),
    column((t) => epochMs(t.issuedAt)),
    column((t) => epochMs(t.expiresAt)),
    column((t) => (t.signIn ? epochMs(t.signIn.authTime) : null)),
    column((t) => t.signIn?.amr.join(' ') ?? null),
    column((t) => t.signIn?.acr ?? null),
    column((t) => t.signIn?.sid ?? null),
    column((t) => t.certificateThumbprint ?? null),
    column((t) => (t.act ? JSON.stringify(t.act) : null)),
    column((t) => (t.audience ? JSON.stringify(t.audience) : null)),
    column((t) => t.keyThumbprint ?? null),
    column((t) => (t.askedClaims ? JSON.stringify(t.askedClaims) : null)),
    column((t) => (t.authorizationDetails ? JSON.stringify(t.authorizationDetails) : null)),
    column((t) => t.signIn?.passwordOf ?? null),
  ];
}

