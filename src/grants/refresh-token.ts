import { narrowedAuthorizationDetails } from '../authorization-details/requested.js';
import { OAuthError } from '../errors.js';
import { rotatesRefreshTokens } from '../profiles/fapi2.js';
import { isScopeString, scopeNames, scopesOutside } from '../records/scope.js';
import { scopesOfAudience } from '../resources/targets.js';
import type { Client } from '../store/clients.js';
import type { Store } from '../store/index.js';
import { type StoredToken, type TokenStore, isLive } from '../store/tokens.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import { sha256 } from '../secrets.js';
import { narrowedAudience } from './audience.js';
import type { GrantHandler } from './grant-handler.js';
import { write } from './issue.js';

const invalidGrant = () => new OAuthError('invalid_grant', 'the refresh token is invalid, expired or revoked');

/**
 * RFC 6749 §6: a refresh token of this client buys a new access token of the same grant.
 *
 * With the realm's `rotate_refresh_tokens`, each use also returns a new refresh token and
 * retires the presented one; presenting a retired one again revokes the whole grant, since
 * either its holder or a thief is replaying it (RFC 9700 §4.14.2). Without rotation the same
 * refresh token stays usable until it expires and no new one is issued. A public client's
 * refresh tokens rotate whatever the setting: nothing else binds them to it (RFC 9700 §4.14.2).
 * A public client's refresh token bound to a client certificate needs that certificate (RFC 8705 §4),
 * and one bound to a DPoP key a proof of that key (RFC 9449 §5).
 */
export function refreshTokenGrant(deps: {
  tokens: Pick<TokenStore, 'find' | 'revokeGrant' | 'rotateRefreshToken'>;
  store: Pick<Store, 'transaction' | 'resources'>;
  issuer: Pick<TokenIssuer, 'userTokens' | 'refreshedTokens'>;
}): GrantHandler<'refresh_token' | 'scope' | 'authorization_details'> {
  return {
    type: 'refresh_token',
    parameters: ['refresh_token', 'scope', 'authorization_details'],
    async handle({ realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, address, audit }) {
      if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
      if (params.scope !== undefined && !isScopeString(params.scope)) {
        throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
      }
      const hash = sha256(params.refresh_token);
      const presented = ofClient(await deps.tokens.find(hash), realm.name, client);
      const usable = isLive(presented, realm.name) ? presented : undefined;
      // Checked before a rotated token is spent, so that a refused scope or audience leaves it usable.
      if (usable) {
        narrowedScope(params.scope, usable.scope);
        narrowedAudience(audience, usable.audience, client);
        narrowedAuthorizationDetails(params.authorization_details, usable.authorizationDetails, realm.settings, client);
      }
      // RFC 8705 §4: a public client's refresh token bound to a certificate works only with it,
      // since nothing else proves the client. A confidential client's is bound to the client by
      // its authentication, so that it may renew its certificate.
      if (usable?.certificateThumbprint && client.client_type === 'public' && usable.certificateThumbprint !== certificateThumbprint) {
        throw new OAuthError('invalid_grant', 'the refresh token is bound to another client certificate');
      }
      // RFC 9449 §5: likewise a public client's refresh token bound to a DPoP key needs a proof of
      // that key (only a public client's is bound: src/tokens/issuer.ts).
      if (usable?.keyThumbprint !== undefined && usable.keyThumbprint !== keyThumbprint) {
        throw new OAuthError(
          'invalid_grant',
          keyThumbprint === undefined ? 'the refresh token is bound to a DPoP key: a DPoP proof is required' : 'the refresh token is bound to another DPoP key',
        );
      }

      // A FAPI 2.0 realm does not rotate (src/profiles/fapi2.ts).
      const rotating = rotatesRefreshTokens(realm.settings) || client.client_type === 'public';
      /** RFC 9700 §4.14.2: a rotated token presented again revokes its grant, since the server cannot tell which holder is the thief. */
      const refuse = async (token: StoredToken | undefined): Promise<never> => {
        if (!rotating || !token?.usedAt) throw invalidGrant();
        await deps.tokens.revokeGrant(token.grantId);
        audit.record({ realm: realm.name, type: 'token.revoked', clientId: client.client_id, address, details: { grant_id: token.grantId, reason: 'refresh_token_reused' } });
        throw new OAuthError('invalid_grant', 'the refresh token was already used; its grant is revoked');
      };
      if (!usable) return refuse(presented);
      const { userId, signIn } = usable;
      if (userId === undefined || !signIn) throw new OAuthError('invalid_grant', 'there is no person behind the refresh token');
      const narrowed = narrowedAudience(audience, usable.audience, client);
      const request = {
        realm,
        client,
        grantType: 'refresh_token',
        // The access token may be narrower than the grant; a new refresh token keeps all of it.
        scope: narrowedScope(params.scope, usable.scope),
        // Likewise its audiences (RFC 8707 §2.2), and with them the scopes it may carry.
        audience: narrowed,
        audienceScopes: audience === undefined ? await scopesOfAudience(deps.store.resources, realm.name, narrowed) : audienceScopes,
        refreshAudience: usable.audience,
        grantId: usable.grantId,
        // No token of the grant outlives its start by more than the realm's grant_max_lifetime.
        grantStartedAt: usable.grantStartedAt,
        signIn,
        certificateThumbprint,
        keyThumbprint,
        address,
        askedClaims: usable.askedClaims,
        // RFC 9396 §7: the access token may carry part of the grant's details; a new refresh token keeps them all.
        authorizationDetails: narrowedAuthorizationDetails(params.authorization_details, usable.authorizationDetails, realm.settings, client),
        refreshAuthorizationDetails: usable.authorizationDetails,
      };

      if (rotating) {
        // The token is used and its successors written in one statement (src/store/tokens.ts).
        const successors = deps.issuer.refreshedTokens({ ...request, userId, refreshScope: scopeNames(usable.scope) });
        const user = await deps.tokens.rotateRefreshToken(hash, realm.name, client.client_id, successors.rows, successors.event);
        if (user) return successors.complete(user);
        // Another use came first (perhaps a replay), or the token or its person ended meanwhile.
        return refuse(ofClient(await deps.tokens.find(hash), realm.name, client));
      }
      // Without rotation, the person, then the token, are held while its new access token is
      // written: a sign-out, a revocation of its grant or of the person's grants waits, and so
      // sees the new token; one that came first has revoked the token, which is then not held.
      const written = await deps.store.transaction(async (tx) => {
        const user = await tx.users.hold(realm.name, userId);
        // A disabled person's refresh tokens were revoked with their grants (CONTRACT.md §10).
        const held = user?.enabled && (await tx.tokens.holdRefreshToken(hash, realm.name, client.client_id));
        return held && write(tx.tokens, deps.issuer.userTokens({ ...request, user }));
      });
      if (!written) throw invalidGrant();
      return written.complete();
    },
  };
}

/** The token when it is a refresh token of this client in this realm. */
function ofClient(token: StoredToken | undefined, realm: string, client: Client): StoredToken | undefined {
  return token?.realm === realm && token.kind === 'refresh_token' && token.clientId === client.client_id ? token : undefined;
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
