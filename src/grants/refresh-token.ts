import { sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import { isScopeString, scopeNames, scopesOutside } from '../oauth/scope.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import { type StoredToken, type TokenStore, isLive } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';

const invalidGrant = () => new OAuthError('invalid_grant', 'the refresh token is invalid, expired or revoked');

/**
 * RFC 6749 §6: a refresh token of this client buys a new access token of the same grant.
 *
 * With the realm's `rotate_refresh_tokens`, each use also returns a new refresh token and
 * retires the presented one; presenting a retired one again revokes the whole grant, since
 * either its holder or a thief is replaying it (RFC 9700 §4.14.2). Without rotation the same
 * refresh token stays usable until it expires and no new one is issued. A public client's
 * refresh tokens rotate whatever the setting: nothing else binds them to it (RFC 9700 §4.14.2).
 * A public client's refresh token bound to a client certificate needs that certificate (RFC 8705 §4).
 */
export function refreshTokenGrant(deps: {
  tokens: TokenStore;
  users: UserStore;
  issuer: TokenIssuer;
}): GrantHandler<'refresh_token' | 'scope'> {
  return {
    type: 'refresh_token',
    parameters: ['refresh_token', 'scope'],
    async handle({ realm, client, params, certificateThumbprint }) {
      if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
      if (params.scope !== undefined && !isScopeString(params.scope)) {
        throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
      }
      const hash = sha256(params.refresh_token);
      const presented = await deps.tokens.find(hash);
      const usable = isLive(presented, realm.name) && isRefreshTokenOf(presented, client) ? presented : undefined;
      // Checked before a rotated token is spent, so that a refused scope leaves it usable.
      if (usable) narrowedScope(params.scope, usable.scope);
      // RFC 8705 §4: a public client's refresh token bound to a certificate works only with it,
      // since nothing else proves the client. A confidential client's is bound to the client by
      // its authentication, so that it may renew its certificate.
      if (usable?.certificateThumbprint && client.client_type === 'public' && usable.certificateThumbprint !== certificateThumbprint) {
        throw new OAuthError('invalid_grant', 'the refresh token is bound to another client certificate');
      }

      const rotating = realm.settings.rotate_refresh_tokens || client.client_type === 'public';
      const token = rotating ? await rotate(deps.tokens, hash, realm, client) : usable;
      if (!token) throw invalidGrant();

      const user = token.userId === undefined ? undefined : await deps.users.getById(realm.name, token.userId);
      if (!user || !token.signIn) throw new OAuthError('invalid_grant', 'there is no person behind the refresh token');

      const response = await deps.issuer.issueUserTokens({
        realm,
        client,
        grantType: 'refresh_token',
        user,
        // The access token may be narrower than the grant; a new refresh token keeps all of it.
        scope: narrowedScope(params.scope, token.scope),
        grantId: token.grantId,
        signIn: token.signIn,
        refreshScope: rotating ? scopeNames(token.scope) : undefined,
        certificateThumbprint,
      });

      // A replay (or a revocation) of the grant may have run while the new tokens were
      // being written, and missed them: they must not outlive their grant. This use still
      // won the token, so it answers; the client learns of the revocation at the next use
      // (RFC 9700 §4.14.2: the server cannot tell which of the two holders is the thief).
      if ((await deps.tokens.find(hash))?.revokedAt) await deps.tokens.revokeGrant(token.grantId);
      return response;
    },
  };
}

function isRefreshTokenOf(token: StoredToken, client: Client): boolean {
  return token.kind === 'refresh_token' && token.clientId === client.client_id;
}

/** Retires the presented refresh token; a replay of a retired one revokes its grant. */
async function rotate(tokens: TokenStore, hash: Buffer, realm: RequestRealm, client: Client): Promise<StoredToken | undefined> {
  const use = await tokens.useRefreshToken(hash, realm.name, client.client_id);
  if (use && 'replayedGrantId' in use) {
    // The presented token first, on its own: a concurrent use that won it looks at it once
    // its new tokens are written (in handle), and whatever it wrote before looking is seen
    // by the revocation of the grant, which starts after this one committed.
    await tokens.revoke(hash);
    await tokens.revokeGrant(use.replayedGrantId);
    throw new OAuthError('invalid_grant', 'the refresh token was already used; its grant is revoked');
  }
  return use?.token;
}

/** RFC 6749 §6: the requested scope, which may leave out but never add to the grant's; all of it by default. */
function narrowedScope(requested: string | undefined, granted: string): string[] {
  const grantedNames = scopeNames(granted);
  if (requested === undefined) return grantedNames;
  const names = scopeNames(requested);
  const refused = scopesOutside(names, grantedNames);
  if (refused.length > 0) throw new OAuthError('invalid_scope', `the grant does not include: ${refused.join(' ')}`);
  return names;
}
