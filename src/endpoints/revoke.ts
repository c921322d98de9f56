import type { FastifyPluginAsync } from 'fastify';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import { type TokenStore, isLive } from '../store/tokens.js';
import { type JwtAccessTokenVerifier, looksLikeJwt } from '../tokens/jwt-access-token.js';
import { sha256 } from '../secrets.js';

/**
 * Token revocation (RFC 7009). A client revokes its own tokens; revoking a refresh token
 * revokes its whole grant. Unknown, expired and already revoked tokens, and other clients'
 * tokens, answer 200 too and change nothing.
 * A JWT access token of the realm is denied by its `jti` until it expires. Each live token
 * revoked is a `token.revoked` audit event.
 */
export function revocationEndpoint(deps: {
  authenticator: ClientAuthenticator;
  tokens: TokenStore;
  jwtAccessTokens: JwtAccessTokenVerifier;
  audit: AuditLog;
}): FastifyPluginAsync {
  return async (app) => {
    app.post('/token/revoke', async (request, reply) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, '/token/revoke');
      // The hint is only a hint (RFC 7009 §2.1); it is read so that a repeated one is refused.
      const { token } = formParams(request.body, ['token', 'token_type_hint']);
      if (!token) throw new OAuthError('invalid_request', 'token is required');
      const revoked = (what: Pick<AuditEvent, 'clientId' | 'userId' | 'details'>) =>
        deps.audit.record({ realm: realm.name, type: 'token.revoked', address: request.ip, ...what });

      if (looksLikeJwt(token)) {
        const jwt = await deps.jwtAccessTokens.verify(realm, token);
        if (jwt) {
          if (jwt.clientId !== client.client_id) return reply.code(200).send();
          await deps.jwtAccessTokens.revoke(realm, jwt);
          revoked({ clientId: jwt.clientId, userId: jwt.userId, details: { token_kind: 'jwt_access_token', grant_id: jwt.grantId, jti: jwt.jti } });
        }
        return reply.code(200).send();
      }
      const hash = sha256(token);
      const stored = await deps.tokens.find(hash);
      if (isLive(stored, realm.name)) {
        // RFC 7009 §2.1: the server verifies the token was issued to the client making the request.
        // Another client's token is left alone with the answer an unknown one gets (§2.2), so that
        // revocation tells no client which tokens are live.
        if (stored.clientId !== client.client_id) return reply.code(200).send();
        // The token itself first: a refresh racing this revocation checks it once its new
        // tokens are written (src/grants/refresh-token.ts).
        await deps.tokens.revoke(hash);
        if (stored.kind === 'refresh_token') await deps.tokens.revokeGrant(stored.grantId, realm.name);
        revoked({
          clientId: stored.clientId,
          userId: stored.userId,
          // Revoking a refresh token revokes its whole grant (CONTRACT.md §6).
          details: { token_kind: stored.kind, grant_id: stored.grantId, grant_revoked: stored.kind === 'refresh_token' },
        });
      }
      return reply.code(200).send();
    });
  };
}
