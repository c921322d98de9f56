import { type CryptoKey, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, errors, jwtVerify } from 'jose';
import type { ClientAssertionStore } from '../store/client-assertions.js';
import type { Client } from '../store/clients.js';
import { ClientJwks } from './client-jwks.js';
import type { ClientAuthContext, ClientAuthMethod } from './methods.js';

/**
 * The signature algorithms a client assertion may use: asymmetric ones only. `none` is never
 * accepted by jose's jwtVerify, and HMAC is left out so that no public key can serve as a
 * shared secret (RFC 8725 §2.1, §3.1).
 */
export const CLIENT_ASSERTION_ALGS = [
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'EdDSA', 'Ed25519',
] as const;

/** An assertion may expire at most this long after it is received (RFC 7523 §3 item 4: "limit"). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** Allowed difference between the client's clock and ours. */
export const CLOCK_SKEW_SECONDS = 60;
/** Longer `jti` values are refused: they are stored. */
export const MAX_JTI_LENGTH = 256;

export interface PrivateKeyJwtDeps {
  assertions: ClientAssertionStore;
  jwks: ClientJwks;
  now?: () => number;
}

/**
 * `private_key_jwt` (RFC 7523 §2.2 and §3, OIDC Core §9): the client signs a JWT with
 * iss = sub = its client_id; aud names this realm's issuer, its token endpoint URL or the
 * URL of the endpoint called (RFC 9126 §2 for PAR); exp is required and at most a few
 * minutes ahead; jti is required and accepted once per client until the assertion expires.
 */
export function privateKeyJwt(deps: PrivateKeyJwtDeps): ClientAuthMethod {
  const now = deps.now ?? Date.now;
  return {
    name: 'private_key_jwt',
    async verify(client, presented, context) {
      if (presented.form !== 'client_assertion' || presented.assertion === undefined) return false;
      const currentMs = now();
      const verified = await verifyClientSignedJwt(deps.jwks, client, presented.assertion, verifyOptions(client, context, currentMs));
      if (!verified.valid) return false;
      const { claims } = verified;

      const nowSeconds = Math.floor(currentMs / 1000);
      const exp = claims.exp!; // required by requiredClaims
      if (exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) return false;
      if (claims.iat !== undefined && claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) return false;
      const { jti } = claims;
      if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) return false;

      // Recorded only once the signature holds, so that nobody else can spend a client's jti.
      const expiresAt = new Date((exp + CLOCK_SKEW_SECONDS) * 1000);
      return deps.assertions.use(context.realm.name, client.client_id, jti, expiresAt);
    },
  };
}

function verifyOptions(client: Client, context: ClientAuthContext, currentMs: number): ClientJwtVerifyOptions {
  const issuer = context.realm.issuer;
  return {
    issuer: client.client_id,
    subject: client.client_id,
    audience: [...new Set([issuer, `${issuer}/access_token`, context.endpointUrl])],
    requiredClaims: ['exp', 'jti'],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date(currentMs),
  };
}

/**
 * jwtVerify's options, except the algorithms: those are always CLIENT_ASSERTION_ALGS. With an
 * `audience`, `aud` must be one string (CONTRACT.md §7, draft-ietf-oauth-rfc7523bis §4: an array
 * lets an assertion made for another server be replayed here), unless `audienceMayBeArray` says
 * the JWT is no assertion made for us but a token that names us among its audiences.
 */
export type ClientJwtVerifyOptions = Omit<JWTVerifyOptions, 'algorithms'> & { audienceMayBeArray?: boolean };

/**
 * Why a JWT a client signed was refused: `unverified` (malformed, an algorithm not accepted,
 * no key of the client verifies it), `expired` (the signature holds but `exp` has passed), or
 * `claim` (the signature holds but the named claim is missing or fails a check of `options`).
 */
export type ClientJwtVerification =
  | { readonly valid: true; readonly claims: JWTPayload }
  | { readonly valid: false; readonly problem: 'unverified' | 'expired' }
  | { readonly valid: false; readonly problem: 'claim'; readonly claim: string; readonly missing: boolean };

/**
 * Verifies a JWT signed by one of the signer's keys (client assertions, CIBA request objects and
 * login hint tokens, trusted issuers' assertions), with an asymmetric algorithm only, and the
 * claim checks of `options`. An unknown `kid` refetches a `jwks_uri` once (within its cooldown).
 */
export async function verifyClientSignedJwt(
  jwks: ClientJwks,
  /** A client, or anyone else known by a `jwks` or `jwks_uri` (a trusted issuer). */
  signer: Pick<Client, 'jwks' | 'jwks_uri'>,
  jwt: string,
  options: ClientJwtVerifyOptions,
): Promise<ClientJwtVerification> {
  const { audienceMayBeArray = false, ...joseOptions } = options;
  const verifyOptions: JWTVerifyOptions = { ...joseOptions, algorithms: [...CLIENT_ASSERTION_ALGS] };
  const verified = await verifySignedBy(jwks, signer, jwt, verifyOptions);
  if (verified.valid && options.audience !== undefined && !audienceMayBeArray && typeof verified.claims.aud !== 'string') {
    return { valid: false, problem: 'claim', claim: 'aud', missing: false };
  }
  return verified;
}

async function verifySignedBy(
  jwks: ClientJwks,
  signer: Pick<Client, 'jwks' | 'jwks_uri'>,
  jwt: string,
  verifyOptions: JWTVerifyOptions,
): Promise<ClientJwtVerification> {
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
function refusal(error: unknown): ClientJwtVerification {
  if (error instanceof errors.JWTExpired) return { valid: false, problem: 'expired' };
  if (error instanceof errors.JWTClaimValidationFailed) {
    return { valid: false, problem: 'claim', claim: error.claim, missing: error.reason === 'missing' };
  }
  return { valid: false, problem: 'unverified' };
}

/** jwtVerify, trying each candidate when several keys of the set match the header (no `kid`). */
async function verifyWith(keySet: JWTVerifyGetKey, assertion: string, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(assertion, keySet, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error as errors.JWKSMultipleMatchingKeys & AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(assertion, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}
