import { type JWTPayload, decodeJwt } from 'jose';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { CLOCK_SKEW_SECONDS, type ClientJwtVerifyOptions, verifyClientSignedJwt } from '../client-auth/private-key-jwt.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { TrustedIssuer, TrustedIssuerStore } from '../store/trusted-issuers.js';
import { admitsClient } from '../trusted-issuers/record.js';

export interface TrustedJwtDeps {
  trustedIssuers: TrustedIssuerStore;
  clientJwks: ClientJwks;
  now?: () => number;
}

/** Why a JWT of another identity system was not accepted; each reason reads well in an error description. */
export class UntrustedJwtError extends Error {
  override name = 'UntrustedJwtError';
}

/**
 * A JWT issued by an identity system this realm trusts (kind `jwt`), for a client it admits:
 * `iss` names the trusted issuer, one of its keys (`jwks` or `jwks_uri`) signs it with an
 * asymmetric algorithm, and the claim checks of `options` hold (`exp` always required).
 */
export async function verifyTrustedJwt(
  deps: TrustedJwtDeps,
  realm: RequestRealm,
  clientId: string,
  jwt: string,
  options: Omit<ClientJwtVerifyOptions, 'issuer' | 'clockTolerance' | 'currentDate'> = {},
): Promise<{ issuer: TrustedIssuer; claims: JWTPayload }> {
  let iss: unknown;
  try {
    iss = decodeJwt(jwt).iss;
  } catch {
    throw new UntrustedJwtError('it is not a JWT');
  }
  const issuer = typeof iss === 'string' ? await deps.trustedIssuers.find(realm.name, 'jwt', iss) : undefined;
  if (!issuer) throw new UntrustedJwtError('its issuer is not trusted by this realm');
  if (!admitsClient(issuer, clientId)) throw new UntrustedJwtError("its issuer's assertions are not accepted from this client");

  const verified = await verifyClientSignedJwt(deps.clientJwks, issuer, jwt, {
    ...options,
    issuer: issuer.issuer,
    requiredClaims: [...new Set(['exp', ...(options.requiredClaims ?? [])])],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date((deps.now ?? Date.now)()),
  });
  if (verified.valid) return { issuer, claims: verified.claims };
  switch (verified.problem) {
    case 'unverified':
      throw new UntrustedJwtError("it is not signed by one of its issuer's keys with an accepted asymmetric algorithm");
    case 'expired':
      throw new UntrustedJwtError('it has expired');
    case 'claim':
      throw new UntrustedJwtError(verified.missing ? `it has no ${verified.claim} claim` : `its ${verified.claim} claim is not acceptable`);
  }
}
