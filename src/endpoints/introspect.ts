import type { FastifyPluginAsync } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import { sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import { type TokenStore, isLive } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import { type JwtAccessTokenVerifier, looksLikeJwt } from '../tokens/jwt-access-token.js';

const INACTIVE = Object.freeze({ active: false });

/**
 * Token introspection (RFC 7662). A confidential client of the realm may introspect the
 * tokens issued to it, or any token of the realm with `introspect_any_token`. Whatever is
 * not an active token it may see is `{active: false}` alone.
 */
export function introspectionEndpoint(deps: {
  authenticator: ClientAuthenticator;
  tokens: TokenStore;
  users: UserStore;
  jwtAccessTokens: JwtAccessTokenVerifier;
}): FastifyPluginAsync {
  return async (app) => {
    app.post('/introspect', async (request) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, '/introspect');
      if (client.client_type === 'public') throw new OAuthError('invalid_client', 'public clients cannot introspect');
      // The hint is only a hint (RFC 7662 §2.1); it is read so that a repeated one is refused.
      const { token } = formParams(request.body, ['token', 'token_type_hint']);
      if (!token) throw new OAuthError('invalid_request', 'token is required');
      if (looksLikeJwt(token)) return introspectJwt(deps, realm, client, token);

      const stored = await deps.tokens.find(sha256(token));
      if (!isLive(stored, realm.name) || (stored.clientId !== client.client_id && !client.introspect_any_token)) return INACTIVE;
      // A token whose person no longer exists (issued while the user was being deleted) is not active.
      const username = stored.userId === undefined ? undefined : await deps.users.usernameOf(realm.name, stored.userId);
      if (stored.userId !== undefined && username === undefined) return INACTIVE;
      return {
        active: true,
        scope: stored.scope,
        client_id: stored.clientId,
        ...(username === undefined ? {} : { username }),
        sub: stored.subject,
        token_type: stored.kind === 'access_token' ? 'Bearer' : 'refresh_token',
        exp: Math.floor(stored.expiresAt.getTime() / 1000),
        iat: Math.floor(stored.issuedAt.getTime() / 1000),
        iss: realm.issuer,
        ...(stored.certificateThumbprint === undefined ? {} : { cnf: { 'x5t#S256': stored.certificateThumbprint } }),
        realm: realm.name,
      };
    });
  };
}

/**
 * A stateless access token (RFC 9068): verified against the realm's published keys, its
 * `jti` and grant checked against the deny list, then described as a stored one would be.
 */
async function introspectJwt(
  deps: { users: UserStore; jwtAccessTokens: JwtAccessTokenVerifier },
  realm: RequestRealm,
  client: Client,
  token: string,
): Promise<Record<string, unknown>> {
  const jwt = await deps.jwtAccessTokens.active(realm, token);
  if (!jwt || (jwt.clientId !== client.client_id && !client.introspect_any_token)) return INACTIVE;
  const username = jwt.userId === undefined ? undefined : await deps.users.usernameOf(realm.name, jwt.userId);
  if (jwt.userId !== undefined && username === undefined) return INACTIVE;
  return {
    active: true,
    scope: jwt.scope,
    client_id: jwt.clientId,
    ...(username === undefined ? {} : { username }),
    sub: jwt.subject,
    token_type: 'Bearer',
    exp: jwt.expiresAt,
    iat: jwt.issuedAt,
    iss: realm.issuer,
    ...(jwt.certificateThumbprint === undefined ? {} : { cnf: { 'x5t#S256': jwt.certificateThumbprint } }),
    realm: realm.name,
  };
}
