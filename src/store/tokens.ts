import { BatchedWriter } from './batched-writer.js';
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

/** A token of this realm that is neither revoked nor expired: the only kind a client may learn about. */
export function isLive(token: StoredToken | undefined, realm: string): token is StoredToken {
  return token !== undefined && token.realm === realm && !token.revokedAt && token.expiresAt.getTime() > Date.now();
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

/**
 * One statement inserts any number of tokens: parallel arrays, one element per row (text
 * for every type, so that both adapters pass them alike).
 */
const INSERT_MANY = `
  INSERT INTO tokens (token_hash, realm, client_id, kind, grant_id, grant_type, subject, user_id, scope, issued_at, expires_at)
  SELECT decode(hash, 'hex'), realm, client_id, kind, grant_id::uuid, grant_type, subject, user_id::uuid, scope,
         issued_at::timestamptz, expires_at::timestamptz
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                $9::text[], $10::text[], $11::text[])
      AS t(hash, realm, client_id, kind, grant_id, grant_type, subject, user_id, scope, issued_at, expires_at)`;

type NewToken = TokenRecord & { hash: Buffer };

/** Opaque tokens, stored by the SHA-256 of their value (never the value). */
export class TokenStore {
  /** Tokens issued at the same time share a statement and a commit (src/store/batched-writer.ts). */
  private readonly writer: BatchedWriter<NewToken>;

  constructor(private readonly db: Db) {
    this.writer = new BatchedWriter((tokens) => this.insertMany(tokens));
  }

  /** Resolves once the token is committed. */
  insert(hash: Buffer, token: TokenRecord): Promise<void> {
    return this.writer.add({ ...token, hash });
  }

  private async insertMany(tokens: readonly NewToken[]): Promise<void> {
    const column = <T>(value: (token: NewToken) => T) => tokens.map(value);
    await this.db.query(INSERT_MANY, [
      column((t) => t.hash.toString('hex')),
      column((t) => t.realm),
      column((t) => t.clientId),
      column((t) => t.kind),
      column((t) => t.grantId),
      column((t) => t.grantType),
      column((t) => t.subject),
      column((t) => t.userId ?? null),
      column((t) => t.scope),
      column((t) => t.issuedAt.toISOString()),
      column((t) => t.expiresAt.toISOString()),
    ]);
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

