import { type TrustedJwtDeps, UntrustedJwtError, verifyTrustedJwt } from '../assertions/trusted-jwt.js';
import { CLOCK_SKEW_SECONDS, MAX_JTI_LENGTH } from '../client-auth/private-key-jwt.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../oauth/scope.js';
import type { UsedAssertionStore } from '../store/used-assertions.js';
import type { UserStore } from '../store/users.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import { userByMapping } from '../users/find.js';
import type { GrantHandler } from './grant-handler.js';

/** RFC 7523 §3 item 4: an assertion may expire at most this long after it is received. */
export const MAX_JWT_ASSERTION_LIFETIME_SECONDS = 3600;

/**
 * The JWT bearer assertion grant (RFC 7523 §2.1, §3): a JWT from a trusted issuer, signed by
 * its keys, for this realm (`aud` the issuer or the token endpoint URL), naming a person of the
 * realm as `sub`, expiring within the hour, used once (`jti`). It gives an access token for
 * that person; no refresh token and no ID token, as no one signed in here (RFC 7521 §4.1).
 */
export function jwtBearerGrant(
  deps: TrustedJwtDeps & { usedAssertions: UsedAssertionStore; users: UserStore; issuer: TokenIssuer },
): GrantHandler<'assertion' | 'scope'> {
  const now = deps.now ?? Date.now;
  return {
    type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    parameters: ['assertion', 'scope'],
    async handle({ realm, client, params, audience, certificateThumbprint, address }) {
      if (!params.assertion) throw new OAuthError('invalid_request', 'assertion is required');
      const scope = requestedScope(params.scope, client.scope);

      let verified;
      try {
        verified = await verifyTrustedJwt(deps, realm, client.client_id, params.assertion, {
          audience: [realm.issuer, `${realm.issuer}/access_token`],
          requiredClaims: ['sub', 'jti'],
        });
      } catch (error) {
        if (error instanceof UntrustedJwtError) refuse(error.message);
        throw error;
      }
      const { issuer, claims } = verified;
      const nowSeconds = Math.floor(now() / 1000);
      const exp = claims.exp!;
      if (exp > nowSeconds + MAX_JWT_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) refuse('it expires more than an hour from now');
      if (claims.iat !== undefined && claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) refuse('it was issued in the future');
      const { jti, sub } = claims;
      if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) refuse('its jti claim is not acceptable');
      if (typeof sub !== 'string' || sub === '') refuse('its sub claim is not acceptable');

      const user = await userByMapping(deps.users, realm.name, issuer.subject_mapping, sub);
      if (!user) refuse('its subject is not a user of this realm');
      // Recorded last, so that a refused assertion does not spend its jti.
      const firstUse = await deps.usedAssertions.use(realm.name, issuer.id, jti, new Date((exp + CLOCK_SKEW_SECONDS) * 1000));
      if (!firstUse) refuse('it was used already');

      return deps.issuer.issueAccessToken({
        realm,
        client,
        grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        scope,
        subject: user.id,
        userId: user.id,
        audience,
        certificateThumbprint,
        address,
      });
    },
  };
}

function refuse(why: string): never {
  throw new OAuthError('invalid_grant', `the assertion is not accepted: ${why}`);
}
