import type { ClientJwks } from '../client-auth/client-jwks.js';
import { CLOCK_SKEW_SECONDS, MAX_JTI_LENGTH, type ClientJwtVerification, verifyClientSignedJwt } from '../client-auth/private-key-jwt.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { ClientAssertionStore } from '../store/client-assertions.js';
import type { Client } from '../store/clients.js';

/** CIBA Core §7.1.1: `exp` at most 60 minutes after `nbf`, and `nbf` at most 60 minutes old. */
export const MAX_REQUEST_OBJECT_LIFETIME_SECONDS = 60 * 60;

export interface RequestObjectDeps {
  clientJwks: ClientJwks;
  clientAssertions: ClientAssertionStore;
  now?: () => number;
}

const invalid = (description: string): OAuthError => new OAuthError('invalid_request', description);

/** A refusal of a client-signed JWT, described without anything the JWT carried. */
export function describeRefusal(what: string, refusal: Exclude<ClientJwtVerification, { valid: true }>): string {
  switch (refusal.problem) {
    case 'unverified':
      return `the ${what} is not a JWT signed by one of the client's keys with an accepted asymmetric algorithm`;
    case 'expired':
      return `the ${what} has expired`;
    case 'claim':
      return refusal.missing ? `the ${what} has no ${refusal.claim} claim` : `the ${what}'s ${refusal.claim} claim is not acceptable`;
  }
}

/**
 * The claims of a signed authentication request (CIBA Core §7.1.1): signed by the client with
 * an asymmetric algorithm, `iss` its client_id, `aud` naming the issuer or the endpoint,
 * `exp`, `iat`, `nbf` and `jti` present, at most 60 minutes between `nbf` and `exp`, `nbf` at
 * most 60 minutes old, and the `jti` used once by the client. Every failure is `invalid_request`.
 */
export async function requestObjectClaims(
  deps: RequestObjectDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  jwt: string,
): Promise<Record<string, unknown>> {
  const currentMs = (deps.now ?? Date.now)();
  const verified = await verifyClientSignedJwt(deps.clientJwks, client, jwt, {
    issuer: client.client_id,
    audience: [...new Set([realm.issuer, endpointUrl])],
    requiredClaims: ['exp', 'iat', 'nbf', 'jti'],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date(currentMs),
  });
  if (!verified.valid) throw invalid(describeRefusal('request object', verified));

  // jose has checked that exp, iat and nbf are numbers, nbf is not in the future and exp not past.
  const { claims } = verified;
  const now = Math.floor(currentMs / 1000);
  const exp = claims.exp!;
  const nbf = claims.nbf!;
  if (exp - nbf > MAX_REQUEST_OBJECT_LIFETIME_SECONDS) throw invalid('the request object may live at most 60 minutes (exp - nbf)');
  if (nbf < now - MAX_REQUEST_OBJECT_LIFETIME_SECONDS) throw invalid('the request object\'s nbf is more than 60 minutes in the past');
  if (claims.iat! > now + CLOCK_SKEW_SECONDS) throw invalid('the request object\'s iat is in the future');
  const { jti } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw invalid('the request object\'s jti claim is not acceptable');

  // The store of client assertion jtis: one namespace per client, so that no assertion can
  // also serve as a request object, nor the other way round.
  const expiresAt = new Date((exp + CLOCK_SKEW_SECONDS) * 1000);
  if (!(await deps.clientAssertions.use(realm.name, client.client_id, jti, expiresAt))) throw invalid('the request object was used already');
  return claims as Record<string, unknown>;
}
