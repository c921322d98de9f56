import type { GrantType } from '../records/client.js';
import { type SamlAssertionDeps, verifySamlBearerAssertion } from '../assertions/saml-assertion.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../records/scope.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';
import { type TokenWriter, issue } from './issue.js';

/** RFC 7522 §2.1 */
export const SAML2_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:saml2-bearer' satisfies GrantType;

/**
 * The SAML 2.0 bearer assertion grant (RFC 7522 §2.1): a signed assertion from a trusted
 * `saml2` issuer (src/assertions/saml-assertion.ts) gives an access token for the person it
 * names; no refresh token and no ID token, as no one signed in here (RFC 7521 §4.1).
 */
export function saml2BearerGrant(deps: SamlAssertionDeps & { issuer: Pick<TokenIssuer, 'accessToken'>; tokens: TokenWriter }): GrantHandler<'assertion' | 'scope'> {
  return {
    type: SAML2_BEARER_GRANT,
    parameters: ['assertion', 'scope'],
    async handle({ realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, address }) {
      if (!params.assertion) throw new OAuthError('invalid_request', 'assertion is required');
      // Before the assertion, so that a refused scope does not spend it.
      const scope = requestedScope(params.scope, client.scope);
      const { user } = await verifySamlBearerAssertion(deps, realm, client, params.assertion);
      return issue(deps.tokens, deps.issuer.accessToken({
        realm,
        client,
        grantType: SAML2_BEARER_GRANT,
        scope,
        subject: user.id,
        userId: user.id,
        audience,
        audienceScopes,
        certificateThumbprint,
        keyThumbprint,
        address,
      }));
    },
  };
}
