import { type AssertionKind, type JwtAssertionDeps, assertionRefusalReason, verifyJwtAssertion } from '../assertions/jwt-assertion.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';

/**
 * A signed authentication request: typed `oauth-authz-req+jwt` if typed at all (RFC 9101
 * §10.8); CIBA Core §7.1.1: `exp` at most 60 minutes after `nbf`, and `nbf` at most 60 minutes old.
 */
export const CIBA_REQUEST_OBJECT: AssertionKind = { typ: 'oauth-authz-req+jwt', maxLifetimeSeconds: 60 * 60 };

export type RequestObjectDeps = JwtAssertionDeps;

/**
 * The claims of a signed authentication request (CIBA Core §7.1.1): signed by the client with
 * an asymmetric algorithm, `iss` its client_id, `aud` naming the issuer or the endpoint,
 * `exp`, `iat`, `nbf` and `jti` present, and the `jti` spent once, in the client's namespace
 * that its client assertions share: no assertion can also serve as a request object, nor the
 * other way round. Every failure is `invalid_request`.
 */
export async function requestObjectClaims(
  deps: RequestObjectDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  jwt: string,
): Promise<Record<string, unknown>> {
  const verified = await verifyJwtAssertion(deps, realm.name, jwt, {
    kind: CIBA_REQUEST_OBJECT,
    signer: client,
    issuer: client.client_id,
    audience: [realm.issuer, endpointUrl],
    requiredClaims: ['iat', 'nbf'],
  });
  if (!verified.valid) throw new OAuthError('invalid_request', `the request object is not accepted: ${assertionRefusalReason(verified)}`);
  return verified.claims;
}
