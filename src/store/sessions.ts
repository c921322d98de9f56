import { type Db, isUuid } from './db.js';
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
  readonly expiresAt: Date;
}

interface SessionRow {
  sid: string;
  realm: string;
  user_id: string;
  auth_time: Date;
  amr: string[];
  journey: string | null;
  acr: string | null;
  expires_at: Date;
}

const COLUMNS = 'sid, realm, user_id, auth_time, amr, journey, acr, expires_at';

const toSession = (row: SessionRow): Session => ({
  sid: row.sid,
  realm: row.realm,
  userId: row.user_id,
  authTime: row.auth_time,
  amr: row.amr,
  // Sessions begun before journeys walked the realm's steps: the default journey.
  journey: row.journey ?? 'default',
  acr: row.acr ?? '0',
  expiresAt: row.expires_at,
});

/** Sessions by the SHA-256 of the secret their cookie carries. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly revokedJwts: RevokedJwts,
  ) {}

  async create(
    secretHash: Buffer,
    session: { realm: string; userId: string; authTime: Date; amr: readonly string[]; journey: string; acr: string; lifetimeSeconds: number },
  ): Promise<Session> {
    const result = await this.db.query<SessionRow>(
      `INSERT INTO sessions (secret_hash, realm, user_id, auth_time, amr, journey, acr, expires_at)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, now() + make_interval(secs => $8)) RETURNING ${COLUMNS}`,
      [secretHash, session.realm, session.userId, session.authTime, session.amr, session.journey, session.acr, session.lifetimeSeconds],
    );
    return toSession(result.rows[0]!);
  }

  /** The unexpired session of this realm with that secret. */
  async find(secretHash: Buffer, realm: string): Promise<Session | undefined> {
    const result = await this.db.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions WHERE secret_hash = $1 AND realm = $2 AND expires_at > now()`,
      [secretHash, realm],
    );
    return result.rows[0] && toSession(result.rows[0]);
  }

  /** Forgets the session; what the browser's earlier sign-ins gave clients stays valid. */
  async delete(secretHash: Buffer): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE secret_hash = $1', [secretHash]);
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
   * Signs the person out: the session goes, and so do the tokens issued under it (those
   * carrying its `sid`), codes not yet exchanged, and device or CIBA requests it approved
   * that were not yet collected, as a sign-out ends what the sign-in began.
   */
  async end(secretHash: Buffer): Promise<void> {
    await this.endWhere('secret_hash = $1', [secretHash]);
  }

  /**
   * Ends one of the person's sessions by its public id, as `end` does (from their account
   * page); false when they have no such session.
   */
  async endForUser(realm: string, userId: string, sid: string): Promise<boolean> {
    if (!isUuid(sid)) return false;
    return this.endWhere('realm = $1 AND user_id = $2::uuid AND sid = $3::uuid', [realm, userId, sid]);
  }

  /**
   * The rows through which tokens are issued under the session are changed in the order that
   * issuance locks them (the request or code, the session, then the person: src/store/tokens.ts
   * insertTokens), and its tokens revoked once the person's row is locked: a token being written
   * under the session is committed first, and revoked here, or is not written at all.
   */
  private async endWhere(condition: string, params: readonly unknown[]): Promise<boolean> {
    const denied = await this.db.transaction(async (tx) => {
      const found = await tx.query<{ realm: string; user_id: string; sid: string }>(
        `SELECT realm, user_id, sid FROM sessions WHERE ${condition}`,
        params,
      );
      const session = found.rows[0];
      if (!session) return undefined;
      const sessionParams = [session.realm, session.user_id, session.sid];
      await tx.query(
        `UPDATE pending_authorizations SET status = 'denied'
          WHERE realm = $1 AND user_id = $2::uuid AND sid = $3::uuid AND status = 'approved'`,
        sessionParams,
      );
      await tx.query(
        'DELETE FROM authorization_codes WHERE realm = $1 AND user_id = $2::uuid AND sid = $3::uuid AND used_at IS NULL',
        sessionParams,
      );
      const ended = await tx.query('DELETE FROM sessions WHERE realm = $1 AND sid = $2::uuid RETURNING 1', [session.realm, session.sid]);
      // Another sign-out of the session came first, and ends the rest.
      if (ended.rows.length === 0) return undefined;
      await tx.query('SELECT 1 FROM users WHERE realm = $1 AND id = $2::uuid FOR UPDATE', [session.realm, session.user_id]);
      await tx.query(
        'UPDATE tokens SET revoked_at = now() WHERE realm = $1 AND user_id = $2 AND sid = $3 AND revoked_at IS NULL',
        sessionParams,
      );
      // Their JWT access tokens are not stored: their grants are denied, and so is every JWT
      // carrying the session's sid (those of grants with nothing stored, no refresh token).
      const grants = await tx.query<DenialRow>(DENY_SESSION_GRANTS, sessionParams);
      const bySid = await tx.query<DenialRow>(DENY_SESSION, [session.realm, session.sid]);
      return [...grants.rows, ...bySid.rows];
    });
    if (denied === undefined) return false;
    this.revokedJwts.remember(denied);
    return true;
  }
}
