import type { Db } from './db.js';

export type TokenKind = 'access_token' | 'refresh_token';

export interface TokenRecord {
  realm: string;
  clientId: string;
  kind: TokenKind;
  /** Shared by every token of one grant, so that one statement revokes them all. */
  grantId: string;
  grantType: string;
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId: string | undefined;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface StoredToken extends TokenRecord {
  revokedAt: Date | undefined;
}

interface TokenRow {
  realm: string;
  client_id: string;
  kind: TokenKind;
  grant_id: string;
  grant_type: string;
  subject: string;
  user_id: string | null;
  scope: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** Opaque tokens, stored by the SHA-256 of their value (never the value). */
export class TokenStore {
  constructor(private readonly db: Db) {}

  async insert(hash: Buffer, token: TokenRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO tokens (token_hash, realm, client_id, kind, grant_id, grant_type, subject, user_id, scope, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        hash,
        token.realm,
        token.clientId,
        token.kind,
        token.grantId,
        token.grantType,
        token.subject,
        token.userId ?? null,
        token.scope,
        token.issuedAt,
        token.expiresAt,
      ],
    );
  }

  async find(hash: Buffer): Promise<StoredToken | undefined> {
    const result = await this.db.query<TokenRow>(
      `SELECT realm, client_id, kind, grant_id, grant_type, subject, user_id, scope, issued_at, expires_at, revoked_at
         FROM tokens WHERE token_hash = $1`,
      [hash],
    );
    const row = result.rows[0];
    return (
      row && {
        realm: row.realm,
        clientId: row.client_id,
        kind: row.kind,
        grantId: row.grant_id,
        grantType: row.grant_type,
        subject: row.subject,
        userId: row.user_id ?? undefined,
        scope: row.scope,
        issuedAt: row.issued_at,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at ?? undefined,
      }
    );
  }

  async revoke(hash: Buffer): Promise<void> {
    await this.db.query('UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
  }

  /** Revokes every token of the grant. */
  async revokeGrant(grantId: string): Promise<void> {
    await this.db.query('UPDATE tokens SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL', [grantId]);
  }
}

