import { type NewAuditEvent, auditEventColumns, insertAuditEvents } from './audit-events.js';
import { StatementBatcher } from './statement-batcher.js';
import type { Db, Queryable } from './db.js';
import { type User, type UserRow, USER_COLUMNS, toUser } from './users.js';
import { type DenialRow, type RevokedJwts, denyGrantsStatement } from './revoked-jwts.js';

export type TokenKind = 'access_token' | 'refresh_token';

export interface TokenRecord {
  realm: string;
  clientId: string;
  kind: TokenKind;
  /** Shared by every token of one grant, so that one statement revokes them all. */
  grantId: string;
  /** When the grant began (its first token's issuance); the token's own `issuedAt` when absent. */
  grantStartedAt?: Date | undefined;
  grantType: string;
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId: string | undefined;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  /** The sign-in behind a person's token, for the ID tokens of later refreshes. */
  signIn?: SignIn;
  /** RFC 8705 §3: the SHA-256 thumbprint (base64url) of the client certificate the token is bound to. */
  certificateThumbprint?: string | undefined;
  /** RFC 8693 §4.1: who acts for the subject, in an exchanged token. */
  act?: Actor | undefined;
  /** RFC 8693 §2.1 `audience` and `resource`: where the token may be used; else the realm's issuer. */
  audience?: readonly string[] | undefined;
}

/** RFC 8693 §4.1: the actor's `sub` (and `iss`), and the earlier actor it acts for, if any. */
export interface Actor {
  readonly sub: string;
  readonly iss?: string;
  readonly act?: Actor;
}

/** When and how the person behind a grant signed in, and in which session. */
export interface SignIn {
  authTime: Date;
  amr: readonly string[];
  /** The acr of the journey walked (CONTRACT.md §8). */
  acr: string;
  sid: string;
}

export interface StoredToken extends TokenRecord {
  revokedAt: Date | undefined;
  /** When a rotated refresh token was exchanged for a new one. */
  usedAt: Date | undefined;
}

/**
 * A token of this realm that is neither revoked, replaced by rotation, nor expired: the only
 * kind a client may learn about.
 */
export function isLive(token: StoredToken | undefined, realm: string): token is StoredToken {
  return token !== undefined && token.realm === realm && !token.revokedAt && !token.usedAt && token.expiresAt.getTime() > Date.now();
}

interface TokenRow {
  realm: string;
  client_id: string;
  kind: TokenKind;
  grant_id: string;
  grant_started_at: Date | null;
  grant_type: string;
  subject: string;
  user_id: string | null;
  scope: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  used_at: Date | null;
  auth_time: Date | null;
  amr: string[] | null;
  acr: string | null;
  sid: string | null;
  cnf_x5t_s256: string | null;
  act: Actor | null;
  aud: string[] | null;
}

/**
 * The token's client exists: the client it was issued to, not one created since under the same
 * client_id. Tokens have no foreign key to clients (migrations/008_token_client_check_on_read.sql),
 * so every read of a token as live checks it.
 */
const CLIENT_EXISTS = `EXISTS (SELECT 1 FROM clients c
                                WHERE c.realm = t.realm AND c.client_id = t.client_id AND c.internal_id = t.client_internal_id)`;

const COLUMNS = `t.realm, t.client_id, t.kind, t.grant_id, t.grant_started_at, t.grant_type, t.subject, t.user_id, t.scope, t.issued_at, t.expires_at,
                 t.revoked_at, t.used_at, t.auth_time, t.amr, t.acr, t.sid, t.cnf_x5t_s256, t.act, t.aud`;

const toToken = (row: TokenRow): StoredToken => ({
  realm: row.realm,
  clientId: row.client_id,
  kind: row.kind,
  grantId: row.grant_id,
  grantStartedAt: row.grant_started_at ?? row.issued_at,
  grantType: row.grant_type,
  subject: row.subject,
  userId: row.user_id ?? undefined,
  scope: row.scope,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at ?? undefined,
  usedAt: row.used_at ?? undefined,
  signIn: row.auth_time && row.sid ? { authTime: row.auth_time, amr: row.amr ?? [], acr: row.acr ?? '0', sid: row.sid } : undefined,
  certificateThumbprint: row.cnf_x5t_s256 ?? undefined,
  act: row.act ?? undefined,
  audience: row.aud ?? undefined,
});

const INSERTED_COLUMNS = [
  'hash', 'realm', 'client_id', 'client_internal_id', 'kind', 'grant_id', 'grant_started_at', 'grant_type', 'subject', 'user_id', 'scope',
  'issued_at', 'expires_at', 'auth_time', 'amr', 'acr', 'sid', 'cnf', 'act', 'aud',
];

/**
 * One statement inserts any number of tokens: parallel arrays from parameter $first on, one
 * element per row (text for every type, so that both adapters pass them alike), and perhaps
 * more arrays (`extra`) that the condition `and` filters on. It answers the grant of each
 * token written.
 *
 * A person's token is written only while the person exists, and their row is locked (FOR KEY
 * SHARE) until the token commits: whatever ends the person's grants (src/store/users.ts,
 * sessions.ts, consents.ts) locks that row FOR UPDATE first, so that it either waits for the
 * token and then revokes it, or goes first, and a deletion leaves nothing to write.
 */
function insertTokens(first: number, extra: readonly string[] = [], and = ''): string {
  const columns = [...INSERTED_COLUMNS, ...extra];
  const arrays = columns.map((_, i) => `$${first + i}::text[]`).join(', ');
  return `
  INSERT INTO tokens (token_hash, realm, client_id, client_internal_id, kind, grant_id, grant_started_at, grant_type, subject,
                      user_id, scope, issued_at, expires_at, auth_time, amr, acr, sid, cnf_x5t_s256, act, aud)
  SELECT decode(hash, 'hex'), realm, client_id, client_internal_id::bigint, kind, grant_id::uuid, grant_started_at::timestamptz,
         grant_type, subject,
         user_id::uuid, scope, issued_at::timestamptz, expires_at::timestamptz, auth_time::timestamptz,
         string_to_array(amr, ' '), acr, sid::uuid, cnf, act::jsonb, aud::jsonb
    FROM unnest(${arrays}) AS t(${columns.join(', ')})
   WHERE (t.user_id IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.realm = t.realm AND u.id = t.user_id::uuid FOR KEY SHARE))
         ${and && `AND ${and}`}
  RETURNING grant_id`;
}

/**
 * The tokens of any number of grants, and the audit events of their issuance (`token.issued`),
 * in one statement: an event is committed with its tokens, or neither is. Each event names
 * its grant, or none when the grant stores no token. Answers the grants written.
 */
const INSERT_MANY = `
  WITH issued AS (${insertTokens(1)}),
  events AS (${insertAuditEvents(1 + INSERTED_COLUMNS.length, ['event_of'], 'WHERE event_of IS NULL OR event_of::uuid IN (SELECT grant_id FROM issued)')})
  SELECT DISTINCT grant_id::text AS grant_id FROM issued`;

/**
 * Rotates refresh tokens (RFC 9700 §4.14.2), any number in one statement, so that they share
 * a round trip and a commit. $1–$3: the presented tokens' hashes (hex), realms and clients;
 * then their successors' columns and the (1-based) presented token each succeeds; then the
 * `token.issued` events' columns and the presented token each tells of.
 *
 * The UPDATE decides between concurrent uses: only one `UPDATE … WHERE used_at IS NULL`
 * marks the row, and only a marked token's successors are inserted, in the same statement,
 * so that a token is never used without its successors written, nor the reverse. A token
 * whose person is gone is not used. The statement answers which presented tokens it used,
 * with their person, for the ID tokens.
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
       AND u.realm = t.realm AND u.id = t.user_id
    RETURNING p.n::int AS n, ${USER_COLUMNS.map((column) => `u.${column}`).join(', ')}
  ),
  successors AS (${insertTokens(4, ['successor_of'], 'successor_of::int IN (SELECT n FROM used)')}),
  events AS (${insertAuditEvents(4 + INSERTED_COLUMNS.length + 1, ['event_of'], 'WHERE event_of::int IN (SELECT n FROM used)')})
  SELECT * FROM used`;

/** Locks (FOR KEY SHARE) the people behind the tokens of these hashes ($1, hex), as insertTokens explains. */
const HOLD_PEOPLE = `
  SELECT 1 FROM users u
   WHERE (u.realm, u.id) IN (SELECT t.realm, t.user_id FROM tokens t
                              WHERE t.token_hash = ANY (ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)))
     FOR KEY SHARE OF u`;

/** $1: the grant id, $2: its realm when known. */
const REVOKE_GRANT = denyGrantsStatement(`
  revoked AS (UPDATE tokens SET revoked_at = now() WHERE grant_id = $1::text::uuid AND revoked_at IS NULL),
  grants AS (
    SELECT realm, $1::text AS id FROM tokens WHERE grant_id = $1::text::uuid
    UNION SELECT $2::text, $1::text WHERE $2::text IS NOT NULL)`);

/**
 * A token to write: its hash, and the internal id of the client it is issued to, as the
 * issuer read the client (the cache's copy; the statement reads no client). A token whose
 * client has been deleted since carries an id that no client has, or none: it is never read,
 * and is deleted when it expires (migrations/008_token_client_check_on_read.sql).
 */
export type NewToken = TokenRecord & { hash: Buffer; clientInternalId: string | null };

/** The tokens of one grant, and the audit event of their issuance (written with them); once its batch has run, whether they were. */
interface GrantWrite {
  tokens: readonly NewToken[];
  event: NewAuditEvent | undefined;
  written: boolean;
}

/** A refresh token presented for rotation, its successors, and, once its batch has run, the person behind it if it was used. */
interface Rotation {
  presented: string;
  realm: string;
  clientId: string;
  successors: readonly NewToken[];
  event: NewAuditEvent | undefined;
  user: User | undefined;
}

/** A lookup by the token's hash (hex), and what it found once its batch has run. */
interface TokenLookup {
  hash: string;
  found: StoredToken | undefined;
}

/** $1: the hashes, hex-encoded. */
const FIND_MANY = `
  SELECT encode(t.token_hash, 'hex') AS hash, ${COLUMNS}
    FROM tokens t
   WHERE t.token_hash = ANY (ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)) AND ${CLIENT_EXISTS}`;

/** The arrays of INSERTED_COLUMNS for these tokens, in that order. */
function insertedColumns(tokens: readonly NewToken[]): Array<Array<string | null>> {
  const column = (value: (token: NewToken) => string | null) => tokens.map(value);
  return [
    column((t) => t.hash.toString('hex')),
    column((t) => t.realm),
    column((t) => t.clientId),
    column((t) => t.clientInternalId),
    column((t) => t.kind),
    column((t) => t.grantId),
    column((t) => (t.grantStartedAt ?? t.issuedAt).toISOString()),
    column((t) => t.grantType),
    column((t) => t.subject),
    column((t) => t.userId ?? null),
    column((t) => t.scope),
    column((t) => t.issuedAt.toISOString()),
    column((t) => t.expiresAt.toISOString()),
    column((t) => t.signIn?.authTime.toISOString() ?? null),
    column((t) => t.signIn?.amr.join(' ') ?? null),
    column((t) => t.signIn?.acr ?? null),
    column((t) => t.signIn?.sid ?? null),
    column((t) => t.certificateThumbprint ?? null),
    column((t) => (t.act ? JSON.stringify(t.act) : null)),
    column((t) => (t.audience ? JSON.stringify(t.audience) : null)),
  ];
}

/** Opaque tokens, stored by the SHA-256 of their value (never the value). */
export class TokenStore {
  /** Tokens issued at the same time share a statement and a commit (src/store/statement-batcher.ts). */
  private readonly writer: StatementBatcher<GrantWrite>;

  /**
   * Lookups by hash (introspection, revocation, userinfo, refresh) that arrive together share
   * a statement too: under load, one round trip answers many requests.
   */
  private readonly lookups: StatementBatcher<TokenLookup>;

  /** Refresh token rotations that arrive together share a statement and a commit as well. */
  private readonly rotations: StatementBatcher<Rotation>;

  constructor(
    private readonly db: Db,
    private readonly revokedJwts: RevokedJwts,
  ) {
    this.writer = new StatementBatcher((grants) => this.insertMany(grants));
    // Two lookups at a time: over a table larger than PostgreSQL's shared buffers, a lookup
    // waits on pages read through the kernel, and a second statement overlaps that wait
    // (bench:scale's tokens part: bench/scale/README.md).
    this.lookups = new StatementBatcher((lookups) => this.findMany(lookups), { maxInFlight: 2 });
    // One batch at a time: the hash order of rotateMany keeps two statements from deadlocking
    // only while the plan locks the rows in that order.
    this.rotations = new StatementBatcher((rotations) => this.rotateMany(rotations), { maxInFlight: 1 });
  }

  /** Resolves once the token is committed. */
  insert(token: NewToken): Promise<void> {
    return this.writer.add({ tokens: [token], event: undefined, written: false });
  }

  /**
   * Inserts the tokens of one grant, and the event of their issuance, in one statement:
   * batched with other grants', or `within` a transaction of the caller's (which commits them).
   * False when nothing was written: the person behind the tokens no longer exists.
   */
  async insertAll(tokens: readonly NewToken[], event: NewAuditEvent | undefined, within?: Queryable): Promise<boolean> {
    if (tokens.length === 0 && !event) return true;
    const grant: GrantWrite = { tokens, event, written: false };
    await (within ? this.insertMany([grant], within) : this.writer.add(grant));
    return grant.written;
  }

  private async insertMany(grants: readonly GrantWrite[], q: Queryable = this.db): Promise<void> {
    const events = grants.flatMap((grant) => (grant.event ? [{ event: grant.event, of: grant.tokens[0]?.grantId ?? null }] : []));
    const result = await q.query<{ grant_id: string }>(INSERT_MANY, [
      ...insertedColumns(grants.flatMap((grant) => grant.tokens)),
      ...auditEventColumns(events.map(({ event }) => event)),
      events.map(({ of }) => of),
    ]);
    const written = new Set(result.rows.map((row) => row.grant_id));
    for (const grant of grants) grant.written = grant.tokens.length === 0 || written.has(grant.tokens[0]!.grantId);
  }

  /**
   * Uses a refresh token of this client once, and writes its successors (rotation, RFC 9700
   * §4.14.2) and the event of their issuance: committed together, in a statement shared with
   * concurrent rotations. Answers the person behind the token when it was used; undefined when
   * it was not live (used, revoked, expired, or its person gone), for the caller to tell a
   * replay from the rest.
   */
  async rotateRefreshToken(
    presented: Buffer,
    realm: string,
    clientId: string,
    successors: readonly NewToken[],
    event: NewAuditEvent | undefined,
  ): Promise<User | undefined> {
    const rotation: Rotation = { presented: presented.toString('hex'), realm, clientId, successors, event, user: undefined };
    await this.rotations.add(rotation);
    return rotation.user;
  }

  private async rotateMany(batch: readonly Rotation[]): Promise<void> {
    // In the order of their hashes: the plan (a nested loop over the presented tokens, each
    // found by its primary key) locks their rows in that order, so that two instances'
    // statements presenting the same tokens wait for each other rather than deadlock.
    const rotations = [...batch].sort((a, b) => (a.presented < b.presented ? -1 : a.presented > b.presented ? 1 : 0));
    const successors = rotations.flatMap((rotation, i) => rotation.successors.map((token) => ({ token, of: String(i + 1) })));
    const events = rotations.flatMap((rotation, i) => (rotation.event ? [{ event: rotation.event, of: String(i + 1) }] : []));
    const presented = rotations.map((rotation) => rotation.presented);
    const result = await this.db.transaction(async (tx) => {
      // The people behind the tokens first, in a statement of its own, so that the rotation's
      // statement starts after whatever ended their grants meanwhile, and sees it (insertTokens).
      await tx.query(HOLD_PEOPLE, [presented]);
      return tx.query<UserRow & { n: number }>(ROTATE_MANY, [
        presented,
        rotations.map((rotation) => rotation.realm),
        rotations.map((rotation) => rotation.clientId),
        ...insertedColumns(successors.map((successor) => successor.token)),
        successors.map((successor) => successor.of),
        ...auditEventColumns(events.map(({ event }) => event)),
        events.map(({ of }) => of),
      ]);
    });
    for (const row of result.rows) rotations[row.n - 1]!.user = toUser(row);
  }

  /** The token of this hash, looked up with those of concurrent callers in one statement. */
  async find(hash: Buffer): Promise<StoredToken | undefined> {
    const lookup: TokenLookup = { hash: hash.toString('hex'), found: undefined };
    await this.lookups.add(lookup);
    return lookup.found;
  }

  private async findMany(lookups: readonly TokenLookup[]): Promise<void> {
    const result = await this.db.query<TokenRow & { hash: string }>(FIND_MANY, [lookups.map((lookup) => lookup.hash)]);
    const byHash = new Map(result.rows.map((row) => [row.hash, row]));
    for (const lookup of lookups) {
      const row = byHash.get(lookup.hash);
      lookup.found = row && toToken(row);
    }
  }

  /**
   * A live refresh token of this client, locked until the transaction `within` ends, so that
   * a revocation of its grant waits for (and so sees) the tokens issued from it. Found by its
   * hash alone, as in ROTATE_MANY.
   */
  async holdRefreshToken(hash: Buffer, realm: string, clientId: string, within: Queryable): Promise<StoredToken | undefined> {
    const held = await within.query<TokenRow>(
      `SELECT ${COLUMNS} FROM tokens t
        WHERE t.token_hash = $1 AND (t.realm, t.client_id) IS NOT DISTINCT FROM ($2, $3) AND t.kind = 'refresh_token'
          AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now() AND ${CLIENT_EXISTS}
          FOR SHARE OF t`,
      [hash, realm, clientId],
    );
    return held.rows[0] && toToken(held.rows[0]);
  }

  async revoke(hash: Buffer): Promise<void> {
    await this.db.query('UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
  }

  /**
   * Revokes every token of the grant: the stored ones, and, in the same statement, its JWT
   * access tokens (which are not stored) through a denial of the grant on every instance.
   * The grant's realm is that of its stored tokens; pass it when it may have none (a code
   * exchanged for a lone JWT access token).
   *
   * The grant's person, then its rows, are locked first: a refresh being written holds the
   * person (insertTokens) and its refresh token's row, so the revocation waits for it, and its
   * statement, which starts afterwards, sees the new tokens and revokes them too; a refresh
   * that comes later waits for the revocation, and then finds its token revoked.
   */
  async revokeGrant(grantId: string, realm?: string): Promise<void> {
    const result = await this.db.transaction(async (tx) => {
      await tx.query(
        `SELECT 1 FROM users u WHERE (u.realm, u.id) IN (SELECT realm, user_id FROM tokens WHERE grant_id = $1::text::uuid) FOR UPDATE OF u`,
        [grantId],
      );
      await tx.query('SELECT 1 FROM tokens WHERE grant_id = $1::text::uuid FOR UPDATE', [grantId]);
      return tx.query<DenialRow>(REVOKE_GRANT, [grantId, realm ?? null]);
    });
    this.revokedJwts.remember(result.rows);
  }
}

