import { type AssertionKind, type JwtAssertionDeps, verifyJwtAssertion } from '../assertions/jwt-assertion.js';
import { isFapi2 } from '../profiles/fapi2.js';
import type { ClientAuthMethod } from './method.js';

/** The SAML bearer assertion's modules (src/assertions/saml-*.ts) read these from here. */

/**
 * A client assertion: typed `client-authentication+jwt` if typed at all
 * (draft-ietf-oauth-rfc7523bis §4), valid for at most five minutes (RFC 7523 §3 item 4: "limit").
 */
export const CLIENT_ASSERTION: AssertionKind = { typ: 'client-authentication+jwt', maxLifetimeSeconds: 300 };

/**
 * `private_key_jwt` (RFC 7523 §2.2 and §3, OIDC Core §9): the client signs a JWT with
 * iss = sub = its client_id; aud names this realm's issuer, its token endpoint URL or the
 * URL of the endpoint called (RFC 9126 §2 for PAR); exp is required and at most a few
 * minutes ahead; jti is required and spent once. A FAPI 2.0 realm accepts its issuer alone as `aud`.
 */
export function privateKeyJwt(deps: JwtAssertionDeps): ClientAuthMethod {
  return {
    name: 'private_key_jwt',
    async verify(client, presented, { realm, endpointUrl }) {
      if (presented.form !== 'client_assertion' || presented.assertion === undefined) return false;
      const verified = await verifyJwtAssertion(deps, realm.name, presented.assertion, {
        kind: CLIENT_ASSERTION,
        signer: client,
        issuer: client.client_id,
        subject: client.client_id,
        // FAPI 2.0 §5.3.2.1: a realm of the profile accepts its issuer alone.
        audience: isFapi2(realm) ? [realm.issuer] : [realm.issuer, `${realm.issuer}/access_token`, endpointUrl],
      });
      return verified.valid;
    },
  };
}
