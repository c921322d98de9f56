/**
 * RFC 9449 §4.2: a DPoP proof is signed with an asymmetric algorithm, since its key is public;
 * `none` and the HMAC algorithms are refused. These are the ones jose verifies in Node.js, and
 * the ones discovery lists as `dpop_signing_alg_values_supported` (§5.1).
 */
export const DPOP_SIGNING_ALGS = [
  'ES256', 'ES384', 'ES512',
  'PS256', 'PS384', 'PS512',
  'RS256', 'RS384', 'RS512',
  'EdDSA', 'Ed25519',
] as const;

export type DpopSigningAlg = (typeof DPOP_SIGNING_ALGS)[number];

const ALGS: ReadonlySet<string> = new Set(DPOP_SIGNING_ALGS);

export const isDpopSigningAlg = (alg: unknown): alg is DpopSigningAlg => typeof alg === 'string' && ALGS.has(alg);
