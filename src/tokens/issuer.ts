import { randomUUID } from 'node:crypto';
import { randomSecret, sha256 } from '../crypto/hash.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { TokenStore } from '../store/tokens.js';

/** The token response of RFC 6749 §5.1 (CONTRACT.md §3). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
  issued_token_type?: string;
}

export interface AccessTokenRequest {
  realm: RequestRealm;
  client: Client;
  grantType: string;
  scope: readonly string[];
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId?: string;
}

/**
 * Mints access tokens: opaque 256-bit values of which only the SHA-256 is stored. The row
 * is committed before the value is returned.
 */
export class TokenIssuer {
  constructor(private readonly tokens: TokenStore) {}

  async issueAccessToken(request: AccessTokenRequest): Promise<TokenResponse> {
    const value = randomSecret();
    const lifetime = request.realm.settings.access_token_lifetime;
    const issuedAt = new Date();
    const scope = request.scope.join(' ');
    await this.tokens.insert(sha256(value), {
      realm: request.realm.name,
      clientId: request.client.client_id,
      kind: 'access_token',
      grantId: randomUUID(),
      grantType: request.grantType,
      subject: request.subject,
      userId: request.userId,
      scope,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + lifetime * 1000),
    });
    return { access_token: value, token_type: 'Bearer', expires_in: lifetime, scope };
  }
}
