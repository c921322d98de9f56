import { type CryptoKey, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, errors, jwtVerify } from 'jose';
import { ClientJwks } from '../client-auth/client-jwks.js';
import type { Client } from '../store/clients.js';

/**
 * The signature algorithms of a JWT that someone else signs for us (client assertions, JWT
 * bearer assertions, CIBA request objects and login hint tokens, trusted issuers' tokens):
 * asymmetric ones only. `none` is never accepted by jose's jwtVerify, and HMAC is left out so
 * that no public key can serve as a shared secret (RFC 8725 §2.1, §3.1).
 */
export const SIGNED_JWT_ALGS = [
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'EdDSA', 'Ed25519',
] as const;

/** The one allowed difference between a signer's clock and ours, wherever a time it wrote is checked. */
export const CLOCK_SKEW_SECONDS = 60;

/** Whoever signs: a client, or anyone else known by a `jwks` or `jwks_uri` (a trusted issuer). */
export type JwtSigner = Pick<Client, 'jwks' | 'jwks_uri'>;

/**
 * jwtVerify's claim checks, except the algorithms (always SIGNED_JWT_ALGS) and the clock
 * (CLOCK_SKEW_SECONDS around `at`, the instant to verify at in ms, now by default). With an
 * `audience`, `aud` must be one string (CONTRACT.md §7, draft-ietf-oauth-rfc7523bis §4: an array
 * lets an assertion made for another server be replayed here), unless `audienceMayBeArray` says
 * the JWT is no assertion made for us but a token that names us among its audiences.
 */
export type SignedJwtOptions = Omit<JWTVerifyOptions, 'algorithms' | 'clockTolerance' | 'currentDate'> & {
  audienceMayBeArray?: boolean;
  at?: number;
};

/**
 * Why a signed JWT was refused: `unverified` (malformed, an algorithm not accepted, no key of
 * the signer verifies it), `expired` (the signature holds but `exp` has passed), or `claim` (the
 * signature holds but the named claim is missing or fails a check).
 */
export type SignedJwtRefusal =
  | { readonly problem: 'unverified' | 'expired' }
  | { readonly problem: 'claim'; readonly claim: string; readonly missing: boolean };

export type SignedJwtVerification = { readonly valid: true; readonly claims: JWTPayload } | ({ readonly valid: false } & SignedJwtRefusal);

/**
 * Verifies a JWT signed by one of the signer's keys, with an asymmetric algorithm only, and the
 * claim checks of `options`. An unknown `kid` refetches a `jwks_uri` once (within its cooldown).
 */
export async function verifySignedJwt(jwks: ClientJwks, signer: JwtSigner, jwt: string, options: SignedJwtOptions): Promise<SignedJwtVerification> {
  const { audienceMayBeArray = false, at, ...joseOptions } = options;
  const verifyOptions: JWTVerifyOptions = {
    ...joseOptions,
    algorithms: [...SIGNED_JWT_ALGS],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date(at ?? Date.now()),
  };
  const verified = await verifySignedBy(jwks, signer, jwt, verifyOptions);
  if (verified.valid && options.audience !== undefined && !audienceMayBeArray && typeof verified.claims.aud !== 'string') {
    return { valid: false, problem: 'claim', claim: 'aud', missing: false };
  }
  return verified;
}

/** A refusal described without anything the JWT carried, to follow "the … is not accepted: ". */
export function refusalReason(refusal: SignedJwtRefusal): string {
  switch (refusal.problem) {
    case 'unverified':
      return "it is not signed by one of its issuer's keys with an accepted asymmetric algorithm";
    case 'expired':
      return 'it has expired';
    case 'claim':
      return refusal.missing ? `it has no ${refusal.claim} claim` : `its ${refusal.claim} claim is not acceptable`;
  }
}

async function verifySignedBy(jwks: ClientJwks, signer: JwtSigner, jwt: string, verifyOptions: JWTVerifyOptions): Promise<SignedJwtVerification> {
  const keySet = await jwks.keySet(signer);
  if (!keySet) return { valid: false, problem: 'unverified' };
  try {
    return { valid: true, claims: await verifyWith(keySet, jwt, verifyOptions) };
  } catch (error) {
    if (!(error instanceof errors.JWKSNoMatchingKey) || !ClientJwks.isRemote(signer)) return refusal(error);
  }
  const refreshed = await jwks.keySet(signer, true);
  if (!refreshed || refreshed === keySet) return { valid: false, problem: 'unverified' };
  try {
    return { valid: true, claims: await verifyWith(refreshed, jwt, verifyOptions) };
  } catch (error) {
    return refusal(error);
  }
}

/** jose checks the signature before the claims: a claim error means the signature held. */
function refusal(error: unknown): SignedJwtVerification {
  if (error instanceof errors.JWTExpired) return { valid: false, problem: 'expired' };
  if (error instanceof errors.JWTClaimValidationFailed) {
    return { valid: false, problem: 'claim', claim: error.claim, missing: error.reason === 'missing' };
  }
  return { valid: false, problem: 'unverified' };
}

/** jwtVerify, trying each candidate when several keys of the set match the header (no `kid`). */
async function verifyWith(keySet: JWTVerifyGetKey, jwt: string, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(jwt, keySet, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error as errors.JWKSMultipleMatchingKeys & AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(jwt, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}
