import { type AssertionKind, assertionRefusalReason, verifyJwtAssertion } from '../assertions/jwt-assertion.js';
import { type TrustedJwtDeps, UntrustedJwtError, trustedIssuerOf } from '../assertions/trusted-jwt.js';
import { userByMapping } from '../authn/user-by-subject.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../records/scope.js';
import type { TrustedIssuer } from '../store/trusted-issuers.js';
import type { User, UserStore } from '../store/users.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';
import { type IdJagRedemptionDeps, redeemIdJag, refuseAssertion } from './id-jag-redemption.js';
import { type TokenWriter, issue } from './issue.js';

/** RFC 7523 §3 item 4: a JWT bearer assertion may be valid for at most an hour. */
export const JWT_BEARER_ASSERTION: AssertionKind = { maxLifetimeSeconds: 3600 };

/**
 * The JWT bearer assertion grant (RFC 7523 §2.1, §3): a JWT from a trusted issuer, signed by
 * its keys, for this realm (`aud` the issuer or the token endpoint URL), naming a person of the
 * realm as `sub`, valid for at most an hour, used once (`jti`). It gives an access token for
 * that person; no refresh token and no ID token, as no one signed in here (RFC 7521 §4.1).
 */
export function jwtBearerGrant(
  deps: TrustedJwtDeps & IdJagRedemptionDeps & { users: UserStore; issuer: Pick<TokenIssuer, 'accessToken'>; tokens: TokenWriter },
): GrantHandler<'assertion' | 'scope'> {
  return {
    type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    parameters: ['assertion', 'scope'],
    async handle({ realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, address }) {
      if (!params.assertion) throw new OAuthError('invalid_request', 'assertion is required');

      let issuer: TrustedIssuer;
      try {
        issuer = await trustedIssuerOf(deps, realm, client.client_id, params.assertion);
      } catch (error) {
        if (error instanceof UntrustedJwtError) refuse(error.message);
        throw error;
      }
      if (issuer.id_jag) {
        // An identity provider trusted for ID-JAGs is trusted for nothing else (CONTRACT.md §15).
        const redeemed = await redeemIdJag(deps, issuer, { realm, client, scope: params.scope, audience, audienceScopes }, params.assertion);
        return issue(deps.tokens, deps.issuer.accessToken({
          realm,
          client,
          grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          scope: redeemed.scope,
          subject: redeemed.user.id,
          userId: redeemed.user.id,
          audience: redeemed.audience,
          audienceScopes: redeemed.audienceScopes,
          certificateThumbprint,
          keyThumbprint,
          address,
        }));
      }
      const scope = requestedScope(params.scope, client.scope);
      const verified = await verifyJwtAssertion(
        deps,
        realm.name,
        params.assertion,
        { kind: JWT_BEARER_ASSERTION, signer: issuer, issuer: issuer.issuer, audience: [realm.issuer, `${realm.issuer}/access_token`], requiredClaims: ['sub'] },
        // Before the jti is spent, so that an assertion naming nobody spends nothing.
        async ({ sub }): Promise<User> => {
          if (typeof sub !== 'string' || sub === '') refuse('its sub claim is not acceptable');
          const user = (await userByMapping(deps.users, realm.name, issuer.subject_mapping, sub)) ?? refuse('its subject is not a user of this realm');
          return user.enabled ? user : refuse('its subject is disabled');
        },
      );
      if (!verified.valid) refuse(assertionRefusalReason(verified));

      return issue(deps.tokens, deps.issuer.accessToken({
        realm,
        client,
        grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        scope,
        subject: verified.accepted.id,
        userId: verified.accepted.id,
        audience,
        audienceScopes,
        certificateThumbprint,
        keyThumbprint,
        address,
      }));
    },
  };
}

function refuse(why: string): never {
  return refuseAssertion(why);
}
