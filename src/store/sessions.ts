import { type Locale, isLocale } from '../records/locales.js';
import { type Consented, consentedOf } from './consents.js';
import { type Db, isUuid } from './db.js';
import { endSessionsStatement } from './session-endings.js';
import { StatementParams } from './statement.js';
import { DENY_SESSION, DENY_SESSION_GRANTS, type DenialRow, type RevokedJwts } from './revoked-jwts.js';

/** A person signed in at a realm (src/authn/session.ts sets and reads its cookie). */
export interface Session {
  /** Public session id: the `sid` of ID tokens. */
  readonly sid: string;
  readonly realm: string;
  readonly userId: string;
  readonly authTime: Date;
  /** RFC 8176 authentication method references: `pwd`, `otp`, `hwk`… */
  readonly amr: readonly string[];
  /** The journey it walked (CONTRACT.md §8), and the acr its ID tokens carry. */
  readonly journey: string;
  readonly acr: string;
  /**
   * The nodes of the person's it passed (CONTRACT.md §8): `password`, `otp`, `passkey`,
   * `identity_provider:<alias>`, `email_verification` (src/authn/journeys/walk.ts passedNodeOf).
   */
  readonly nodes: readonly string[];
  readonly expiresAt: Date;
  /** The language of the pages that follow the sign-in (CONTRACT.md §16); none: the request's. */
  readonly locale: Locale | undefined;
}

export interface SessionRow {
  sid: string;
  realm: string;
  user_id: string;
  auth_time: Date;
  amr: string[];
  journey: string | null;
  acr: string | null;
  nodes: string[];
  expires_at: Date;
  locale: string | null;
}

const SESSION_COLUMNS = ['sid', 'realm', 'user_id', 'auth_time', 'amr', 'journey', 'acr', 'nodes', 'expires_at', 'locale'] as const;

/** A session's columns; of an alias in a join, each named with `prefix` (`s.sid AS session_sid`). */
export const sessionColumns = (alias?: string, prefix = ''): string =>
  SESSION_COLUMNS.map((column) => (alias ? `${alias}.${column}${prefix ? ` AS ${prefix}${column}` : ''}` : column)).join(', ');

/** The session in a row of a join whose session columns carry `prefix`; undefined when the join found none. */
export function prefixedSession(row: Record<string, unknown>, prefix: string): Session | undefined {
  if (row[`${prefix}sid`] == null) return undefined;
  return toSession(Object.fromEntries(SESSION_COLUMNS.map((column) => [column, row[`${prefix}${column}`]])) as unknown as SessionRow);
}

const COLUMNS = sessionColumns();

/** What a new session is: who signed in, when, how (CONTRACT.md §8), and for how long. */
export interface NewSession {
  realm: string;
  userId: string;
  authTime: Date;
  amr: readonly string[];
  journey: string;
  acr: string;
  nodes: readonly string[];
  lifetimeSeconds: number;
  /**
   * The fingerprint of the password the sign-in checked (src/authn/password-verification.ts passwordFingerprint):
   * the session begins only while it is still the person's, so that a sign-in with a password
   * changed under it (by its owner, to shut someone out) begins nothing.
   */
  passwordOf?: string | undefined;
  /** The language the sign-in's pages were in, for the pages that follow. */
  locale?: Locale | undefined;
}

/**
 * The statement that starts a session, answering its columns; none when the person is gone or
 * disabled, or their password is no longer the one the sign-in checked. It reads the person's
 * row while it locks it FOR KEY SHARE, as token issuance does (src/store/token-statements.ts
 * insertTokens): a disable or a password change that locked the row first is waited for, and
 * then no session begins; one that comes later ends the session (src/store/users.ts endGrants).
 */
export function insertSession(params: StatementParams, secretHash: Buffer, session: NewSession, condition = 'true'): string {
  const passwordOf = params.add(session.passwordOf ?? null);
  return `INSERT INTO sessions (secret_hash, realm, user_id, auth_time, amr, journey, acr, nodes, expires_at, locale)
          SELECT ${params.add(secretHash)}::bytea, u.realm, u.id, ${params.add(session.authTime)}::timestamptz,
                 ${params.add(session.amr)}::text[], ${params.add(session.journey)}::text, ${params.add(session.acr)}::text,
                 ${params.add(session.nodes)}::text[],
                 now() + make_interval(secs => ${params.add(session.lifetimeSeconds)}::double precision),
                 ${params.add(session.locale ?? null)}::text
            FROM users u WHERE u.realm = ${params.add(session.realm)} AND u.id = ${params.add(session.userId)}::uuid AND u.enabled
             AND (${passwordOf}::text IS NULL OR encode(sha256(convert_to(u.password_hash, 'UTF8')), 'hex') = ${passwordOf})
             AND (${condition})
             FOR KEY SHARE
          RETURNING ${COLUMNS}`;
}

/**
 * The statement that records `clientId` among the clients the session `sid` gave a code or
 * tokens to, whom its end tells (OpenID Connect Back-Channel Logout 1.0, src/store/session-endings.ts):
 * a part of the statement that issues, so that it costs no round trip. With `from`, only when
 * that CTE has a row.
 */
export function noteSessionClient(params: StatementParams, realm: string, sid: string, clientId: string, from?: string): string {
  const client = `${params.add(clientId)}::text`;
  return `UPDATE sessions SET clients = array_append(clients, ${client})
           WHERE realm = ${params.add(realm)} AND sid = ${params.add(sid)}::uuid AND NOT (${client} = ANY (clients))
             ${from ? `AND EXISTS (SELECT 1 FROM ${from})` : ''}`;
}

export const toSession = (row: SessionRow): Session => ({
  sid: row.sid,
  realm: row.realm,
  userId: row.user_id,
  authTime: row.auth_time,
  amr: row.amr,
  // Sessions begun before journeys walked the realm's steps: the default journey.
  journey: row.journey ?? 'default',
  acr: row.acr ?? '0',
  nodes: row.nodes ?? [],
  expiresAt: row.expires_at,
  locale: row.locale !== null && isLocale(row.locale) ? row.locale : undefined,
});

/** Sessions by the SHA-256 of the secret their cookie carries. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly revokedJwts: RevokedJwts,
  ) {}

  /** Undefined when the person is gone or disabled. */
  async create(secretHash: Buffer, session: NewSession): Promise<Session | undefined> {
    const params = new StatementParams();
    const result = await this.db.query<SessionRow>(insertSession(params, secretHash, session), params.values);
    return result.rows[0] && toSession(result.rows[0]);
  }

  /** The unexpired session of this realm with that secret. */
  async find(secretHash: Buffer, realm: string): Promise<Session | undefined> {
    const result = await this.db.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions WHERE secret_hash = $1 AND realm = $2 AND expires_at > now()`,
      [secretHash, realm],
    );
    return result.rows[0] && toSession(result.rows[0]);
  }

  /**
   * The unexpired session of this realm with that secret, and the scopes and resources its
   * person allowed the client before (undefined when never), in one statement: what /authorize
   * needs to answer a signed-in browser at once.
   */
  async findWithConsent(secretHash: Buffer, realm: string, clientId: string): Promise<{ session: Session; consented: Consented | undefined } | undefined> {
    const result = await this.db.query<SessionRow & { consented: Consented | null }>(
      `SELECT ${sessionColumns('s')}, ${consentedOf('c')} AS consented
         FROM sessions s LEFT JOIN consents c ON c.realm = s.realm AND c.user_id = s.user_id AND c.client_id = $3
        WHERE s.secret_hash = $1 AND s.realm = $2 AND s.expires_at > now()`,
      [secretHash, realm, clientId],
    );
    const row = result.rows[0];
    return row && { session: toSession(row), consented: row.consented ?? undefined };
  }

  /** Forgets the session; what the browser's earlier sign-ins gave clients stays valid. */
  async delete(secretHash: Buffer): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE secret_hash = $1', [secretHash]);
  }

  /** The language a page's picker chose for the pages that follow (CONTRACT.md §16). */
  async setLocale(secretHash: Buffer, locale: Locale): Promise<void> {
    await this.db.query('UPDATE sessions SET locale = $2 WHERE secret_hash = $1 AND expires_at > now()', [secretHash, locale]);
  }

  /** The person's unexpired sessions at the realm, the most recent sign-in first. */
  async listForUser(realm: string, userId: string): Promise<Session[]> {
    const result = await this.db.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions WHERE realm = $1 AND user_id = $2 AND expires_at > now() ORDER BY auth_time DESC, sid`,
      [realm, userId],
    );
    return result.rows.map(toSession);
  }

  /**
   * The person's unexpired sessions, the most recent sign-in first, each with what was done in
   * it: the clients given codes or tokens under it, and when it was last seen (its sign-in, or
   * the last token issued under it, a refresh's included). Read from the rows the sessions'
   * work wrote, so that using a session writes nothing more.
   */
  async activityOfUser(realm: string, userId: string): Promise<SessionActivity[]> {
    const result = await this.db.query<SessionRow & { last_seen_at: Date; clients: string[] }>(
      `SELECT ${sessionColumns('s')}, greatest(s.auth_time, max(w.issued_at)) AS last_seen_at,
              coalesce(array_agg(DISTINCT w.client_id ORDER BY w.client_id) FILTER (WHERE w.client_id IS NOT NULL), '{}') AS clients
         FROM sessions s
         LEFT JOIN LATERAL (
           SELECT t.client_id, t.issued_at FROM tokens t WHERE t.realm = s.realm AND t.user_id = s.user_id AND t.sid = s.sid
           UNION ALL
           SELECT c.client_id, NULL FROM authorization_codes c WHERE c.realm = s.realm AND c.user_id = s.user_id AND c.sid = s.sid
         ) w ON true
        WHERE s.realm = $1 AND s.user_id = $2::uuid AND s.expires_at > now()
        GROUP BY s.secret_hash
        ORDER BY s.auth_time DESC, s.sid`,
      [realm, userId],
    );
    return result.rows.map((row) => ({ session: toSession(row), lastSeenAt: row.last_seen_at, clients: row.clients }));
  }

  /**
   * Signs the person out: the session goes, and so do the tokens issued under it (those
   * carrying its `sid`), codes not yet exchanged, and device or CIBA requests it approved
   * that were not yet collected, as a sign-out ends what the sign-in began.
   */
  async end(secretHash: Buffer): Promise<{ clients: readonly string[] }> {
    return { clients: (await this.endWhere('secret_hash = $1', [secretHash])).clients };
  }

  /**
   * Ends one of the person's sessions by its public id, as `end` does (from their account
   * page); false when they have no such session.
   */
  async endForUser(realm: string, userId: string, sid: string): Promise<boolean> {
    if (!isUuid(sid)) return false;
    return (await this.endWhere('realm = $1 AND user_id = $2::uuid AND sid = $3::uuid', [realm, userId, sid])).count > 0;
  }

  /** Signs the person out everywhere: each of their sessions ends as `end` ends one. Answers how many did. */
  async endAllForUser(realm: string, userId: string): Promise<number> {
    return (await this.endWhere('realm = $1 AND user_id = $2::uuid', [realm, userId])).count;
  }

  /**
   * Ends the sessions found by `condition`, all of one person. The rows through which tokens
   * are issued under them are changed in the order that issuance locks them (the request or
   * code, the session, then the person: src/store/tokens.ts insertTokens), and their tokens
   * revoked once the person's row is locked: a token being written under one of them is
   * committed first, and revoked here, or is not written at all. Answers how many ended, and
   * the clients they gave codes or tokens to (whose back-channel logouts are queued).
   */
  private async endWhere(condition: string, params: readonly unknown[]): Promise<{ count: number; clients: readonly string[] }> {
    const ended = await this.db.transaction(async (tx) => {
      const found = await tx.query<{ realm: string; user_id: string; sid: string }>(
        `SELECT realm, user_id, sid FROM sessions WHERE ${condition} ORDER BY sid`,
        params,
      );
      const first = found.rows[0];
      if (!first) return undefined;
      const person = [first.realm, first.user_id];
      const sids = found.rows.map((row) => row.sid);
      const sessionParams = [...person, sids];
      await tx.query(
        `UPDATE pending_authorizations SET status = 'denied'
          WHERE realm = $1 AND user_id = $2::uuid AND sid = ANY ($3::uuid[]) AND status = 'approved'`,
        sessionParams,
      );
      await tx.query(
        'DELETE FROM authorization_codes WHERE realm = $1 AND user_id = $2::uuid AND sid = ANY ($3::uuid[]) AND used_at IS NULL',
        sessionParams,
      );
      const deleted = await tx.query<{ sid: string; clients: string[] }>(endSessionsStatement('realm = $1 AND sid = ANY ($2::uuid[])'), [first.realm, sids]);
      // Another sign-out of a session came first, and ends the rest of it.
      const endedSids = deleted.rows.map((row) => row.sid);
      if (endedSids.length === 0) return undefined;
      await tx.query('SELECT 1 FROM users WHERE realm = $1 AND id = $2::uuid FOR UPDATE', person);
      await tx.query(
        'UPDATE tokens SET revoked_at = now() WHERE realm = $1 AND user_id = $2 AND sid = ANY ($3::uuid[]) AND revoked_at IS NULL',
        [...person, endedSids],
      );
      // Their JWT access tokens are not stored: their grants are denied, and so is every JWT
      // carrying a session's sid (those of grants with nothing stored, no refresh token).
      const denied = [
        ...(await tx.query<DenialRow>(DENY_SESSION_GRANTS, [...person, endedSids])).rows,
        ...(await tx.query<DenialRow>(DENY_SESSION, [first.realm, endedSids])).rows,
      ];
      return { count: endedSids.length, clients: [...new Set(deleted.rows.flatMap((row) => row.clients))], denied };
    });
    if (ended === undefined) return { count: 0, clients: [] };
    this.revokedJwts.remember(ended.denied);
    return { count: ended.count, clients: ended.clients };
  }
}

/** A session as the admin API lists it (`SessionStore.activityOfUser`). */
export interface SessionActivity {
  readonly session: Session;
  readonly lastSeenAt: Date;
  /** The clients given codes or tokens under it. */
  readonly clients: readonly string[];
}
