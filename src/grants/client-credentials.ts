import { requestedAuthorizationDetails } from '../authorization-details/requested.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../records/scope.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';
import { type TokenWriter, issue } from './issue.js';

/**
 * RFC 6749 §4.4: a confidential client obtains a token for itself. No refresh token
 * (§4.4.3); the scope is the requested one, within the client's, or all of the client's.
 * RFC 9396 §6: `authorization_details` asked here go into the token as asked, once checked.
 */
export function clientCredentialsGrant(deps: { issuer: Pick<TokenIssuer, 'accessToken'>; tokens: TokenWriter }): GrantHandler<'scope' | 'authorization_details'> {
  return {
    type: 'client_credentials',
    parameters: ['scope', 'authorization_details'],
    spendsProof: true,
    async handle({ realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, proofSpend, address }) {
      if (client.client_type !== 'confidential') {
        throw new OAuthError('unauthorized_client', 'client_credentials is for confidential clients');
      }
      const scope = requestedScope(params.scope, client.scope);
      const authorizationDetails = requestedAuthorizationDetails(params.authorization_details, realm.settings, client);
      return issue(deps.tokens, deps.issuer.accessToken({
        realm,
        client,
        grantType: 'client_credentials',
        scope,
        subject: client.client_id,
        audience,
        audienceScopes,
        certificateThumbprint,
        keyThumbprint,
        address,
        authorizationDetails,
      }), proofSpend);
    },
  };
}
