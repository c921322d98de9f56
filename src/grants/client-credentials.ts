import { OAuthError } from '../errors.js';
import { scopeNames, scopesOutside, isScopeString } from '../oauth/scope.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';

/**
 * RFC 6749 §4.4: a confidential client obtains a token for itself. No refresh token
 * (§4.4.3); the scope is the requested one, within the client's, or all of the client's.
 */
export function clientCredentialsGrant(issuer: TokenIssuer): GrantHandler<'scope'> {
  return {
    type: 'client_credentials',
    parameters: ['scope'],
    async handle({ realm, client, params }) {
      if (client.client_type !== 'confidential') {
        throw new OAuthError('unauthorized_client', 'client_credentials is for confidential clients');
      }
      const allowed = scopeNames(client.scope);
      let scope = allowed;
      if (params.scope !== undefined) {
        if (!isScopeString(params.scope)) throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
        scope = scopeNames(params.scope);
        const refused = scopesOutside(scope, allowed);
        if (refused.length > 0) throw new OAuthError('invalid_scope', `the client may not request: ${refused.join(' ')}`);
      }
      return issuer.issueAccessToken({ realm, client, grantType: 'client_credentials', scope, subject: client.client_id });
    },
  };
}
