import { type JWTPayload, decodeJwt } from 'jose';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import type { RequestRealm } from '../records/realm.js';
import type { TrustedIssuer, TrustedIssuerStore } from '../store/trusted-issuers.js';
import { type SignedJwtOptions, refusalReason, verifySignedJwt } from './signed-jwt.js';
import { admitsClient } from '../records/trusted-issuer.js';

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
 * The identity system this realm trusts (kind `jwt`) that the JWT's `iss` names, if it admits
 * the client. Nothing in the JWT is verified yet: the issuer found gives the keys that will.
 */
export async function trustedIssuerOf(
  deps: Pick<TrustedJwtDeps, 'trustedIssuers'>,
  realm: RequestRealm,
  clientId: string,
  jwt: string,
): Promise<TrustedIssuer> {
  let iss: unknown;
  try {
    iss = decodeJwt(jwt).iss;
  } catch {
    throw new UntrustedJwtError('it is not a JWT');
  }
  const issuer = typeof iss === 'string' ? await deps.trustedIssuers.find(realm.name, 'jwt', iss) : undefined;
  if (!issuer) throw new UntrustedJwtError('its issuer is not trusted by this realm');
  if (!admitsClient(issuer, clientId)) throw new UntrustedJwtError("its issuer's assertions are not accepted from this client");
  return issuer;
}

/**
 * A token issued by an identity system this realm trusts, for a client it admits (token
 * exchange's subject and actor tokens): `iss` names the trusted issuer, one of its keys
 * (`jwks` or `jwks_uri`) signs it with an asymmetric algorithm, and the claim checks of
 * `options` hold (`exp` always required). Assertions spent once are src/assertions/jwt-assertion.ts.
 */
export async function verifyTrustedJwt(
  deps: TrustedJwtDeps,
  realm: RequestRealm,
  clientId: string,
  jwt: string,
  options: Omit<SignedJwtOptions, 'issuer' | 'at'> = {},
): Promise<{ issuer: TrustedIssuer; claims: JWTPayload }> {
  const issuer = await trustedIssuerOf(deps, realm, clientId, jwt);
  const verified = await verifySignedJwt(deps.clientJwks, issuer, jwt, {
    ...options,
    issuer: issuer.issuer,
    requiredClaims: [...new Set(['exp', ...(options.requiredClaims ?? [])])],
    at: (deps.now ?? Date.now)(),
  });
  if (!verified.valid) throw new UntrustedJwtError(refusalReason(verified));
  return { issuer, claims: verified.claims };
}
