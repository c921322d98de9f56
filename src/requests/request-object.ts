import { type AssertionKind, type JwtAssertionDeps, assertionRefusalReason, verifyJwtAssertion } from '../assertions/jwt-assertion.js';
import { OAuthError } from '../errors.js';
import { FORM_LIMITS } from '../http/form-params.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import { AUTHORIZATION_PARAMETERS, type AuthorizationParams } from './authorization-request.js';

/**
 * A request object of /authorize and /par (RFC 9101): typed `oauth-authz-req+jwt`, or the
 * generic `JWT` that OpenID Connect Core §6.1 objects carry; `exp` at most 60 minutes after its
 * `nbf` (or `iat`), that start at most 60 minutes past (as FAPI asks of request objects);
 * `jti` optional (RFC 9101 §4), and spent once when present.
 */
export const AUTHORIZATION_REQUEST_OBJECT: AssertionKind = { typ: 'oauth-authz-req+jwt', maxLifetimeSeconds: 60 * 60, jtiOptional: true };

export type RequestObjectDeps = JwtAssertionDeps;

const invalidObject = (reason: string): OAuthError => new OAuthError('invalid_request_object', `the request object is not accepted: ${reason}`);

/**
 * The parameters of an authorization request at /authorize or /par. With a signed `request`,
 * only the object's (RFC 9101 §6.3: the outer ones are ignored), once the object is verified:
 * signed with a key of the client's `jwks` or `jwks_uri` by an asymmetric algorithm (never
 * `none`), `iss` the client_id, `aud` the realm's issuer as one string (CONTRACT.md §7), `exp`
 * bounded, its `client_id` that of the request, and an outer `response_type` equal to its own
 * (OpenID Connect Core §6.1). Without one, the request's own parameters, unless the client
 * must sign its requests (`require_signed_request_object`, RFC 9101 §10.5).
 */
export async function authorizationParameters(
  deps: RequestObjectDeps,
  realm: RequestRealm,
  client: Client,
  outer: AuthorizationParams,
): Promise<AuthorizationParams> {
  if (outer.request === undefined) {
    if (client.require_signed_request_object) {
      throw new OAuthError('invalid_request', 'this client must send its authorization requests as a signed request object (request)');
    }
    return outer;
  }
  const verified = await verifyJwtAssertion(
    deps,
    realm.name,
    outer.request,
    { kind: AUTHORIZATION_REQUEST_OBJECT, signer: client, issuer: client.client_id, audience: [realm.issuer] },
    // Checked before its jti is spent: a refused object spends nothing.
    (claims) => {
      const params = parametersOf(claims);
      if (params.client_id !== client.client_id) throw invalidObject('its client_id claim must be the client_id of the request');
      if (outer.response_type !== undefined && outer.response_type !== params.response_type) {
        throw invalidObject('the response_type of the request differs from its own');
      }
      return params;
    },
  );
  if (!verified.valid) throw invalidObject(assertionRefusalReason(verified));
  return verified.accepted;
}

/**
 * The authorization parameters among an object's claims, as a form gives them: strings, an
 * empty one absent. `max_age` may be a number and `claims` an object (OpenID Connect Core §6.1); `resource`, which a
 * form may repeat, a string or an array of them (RFC 8707 §2.1); an object cannot refer to
 * another one (RFC 9101 §4).
 */
function parametersOf(claims: Readonly<Record<string, unknown>>): AuthorizationParams {
  const params: Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>> & { resource?: string[] } = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = claims[name];
    if (value === undefined || value === '') continue;
    if (name === 'request' || name === 'request_uri') throw invalidObject(`it must not hold ${name}`);
    if (typeof value === 'string') params[name] = value;
    // OpenID Connect Core §6.1: `claims` is a JSON object within the object, as the form's string.
    else if (name === 'claims' && typeof value === 'object' && value !== null && !Array.isArray(value)) params[name] = JSON.stringify(value);
    // RFC 9396 §3: `authorization_details` is a JSON array within the object.
    else if (name === 'authorization_details' && Array.isArray(value)) params[name] = JSON.stringify(value);
    else if (name === 'max_age' && Number.isSafeInteger(value) && (value as number) >= 0) params[name] = String(value);
    else throw invalidObject(`its ${name} claim must be a string`);
  }
  const resource = claims.resource;
  if (resource !== undefined && resource !== '') {
    const values = Array.isArray(resource) ? resource : [resource];
    if (values.length > FORM_LIMITS.repeatedValues || !values.every((value) => typeof value === 'string')) {
      throw invalidObject('its resource claim must be a string or an array of strings');
    }
    params.resource = (values as string[]).filter((value) => value !== '');
  }
  return params;
}
