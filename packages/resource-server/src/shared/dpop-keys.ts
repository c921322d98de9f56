import { type KeyObject, constants, createHash, createPublicKey, verify } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DpopSigningAlg } from './dpop-algorithms.js';
import { joseToDer } from './ecdsa-der.js';

/**
 * The public keys of DPoP proofs, imported once and kept by their RFC 7638 thumbprint. A client
 * sends the same key with every proof; importing it (and verifying through WebCrypto, on the
 * thread pool) cost more than the signature check itself. The thumbprint is computed from the
 * very members the key is imported from, so that a cached key is the key a proof names.
 */

/** RFC 7638 §3.2: the required members of each key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/** Keys kept; one per client in practice, bounded so that a flood of new keys only evicts old ones. */
const CACHED_KEYS = 1000;

/** A public key of a proof: its thumbprint, and the members it is imported from. */
export interface ProofKey {
  thumbprint: string;
  members: Readonly<Record<string, string>>;
}

/**
 * The thumbprint members of `jwk` (RFC 7638 §3.2) and its SHA-256 thumbprint, base64url;
 * undefined when it is no EC, OKP or RSA key with those members as strings.
 */
export function proofKey(jwk: Record<string, unknown>): ProofKey | undefined {
  const names = typeof jwk.kty === 'string' && Object.hasOwn(THUMBPRINT_MEMBERS, jwk.kty) ? THUMBPRINT_MEMBERS[jwk.kty]! : undefined;
  if (!names) return undefined;
  const members: Record<string, string> = {};
  for (const name of names) {
    const value = jwk[name];
    if (typeof value !== 'string' || value.length === 0) return undefined;
    members[name] = value;
  }
  // JSON.stringify of an object built in that order is RFC 7638's canonical form (members are base64url or names: nothing to escape).
  const thumbprint = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  return { thumbprint, members };
}

/**
 * What each algorithm needs of the key (RFC 7518 §3; 2048 bits at least for RSA, as jose demands)
 * and how node:crypto checks it. The key is passed bare wherever node:crypto's defaults are the
 * algorithm's (PKCS #1 v1.5 padding, DER ECDSA signatures, converted from r || s here: ./ecdsa-der.ts):
 * a key inside an options object is prepared anew at every call, which cost a third of a proof's check.
 */
interface Verifier {
  keyType: string;
  namedCurve?: string;
  digest: string | null;
  /** ECDSA: the length of r and of s in the proof's signature. */
  integerBytes?: number;
  /** RSASSA-PSS: its padding, which a bare key would not select. */
  options?: { padding: number; saltLength: number };
}

const ecdsa = (namedCurve: string, digest: string, integerBytes: number): Verifier => ({ keyType: 'ec', namedCurve, digest, integerBytes });
const pkcs1 = (digest: string): Verifier => ({ keyType: 'rsa', digest });
const pss = (digest: string): Verifier => ({
  keyType: 'rsa',
  digest,
  options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
});
const eddsa: Verifier = { keyType: 'ed25519', digest: null };

const VERIFIERS: Readonly<Record<DpopSigningAlg, Verifier>> = {
  ES256: ecdsa('prime256v1', 'sha256', 32),
  ES384: ecdsa('secp384r1', 'sha384', 48),
  ES512: ecdsa('secp521r1', 'sha512', 66),
  RS256: pkcs1('sha256'),
  RS384: pkcs1('sha384'),
  RS512: pkcs1('sha512'),
  PS256: pss('sha256'),
  PS384: pss('sha384'),
  PS512: pss('sha512'),
  EdDSA: eddsa,
  Ed25519: eddsa,
};

const MIN_RSA_BITS = 2048;

/** Imported keys by thumbprint; a key that does not import is remembered as null, so that a bad key costs one import. */
const keys = new LRUCache<string, KeyObject | { invalid: true }>({ max: CACHED_KEYS });

function importKey(key: ProofKey): KeyObject | undefined {
  let imported = keys.get(key.thumbprint);
  if (imported === undefined) {
    try {
      imported = createPublicKey({ key: key.members, format: 'jwk' });
    } catch {
      imported = { invalid: true };
    }
    keys.set(key.thumbprint, imported);
  }
  return 'invalid' in imported ? undefined : imported;
}

/** Whether `key` may sign with `alg`: its type and curve, or its size. */
function fits(imported: KeyObject, verifier: Verifier): boolean {
  if (imported.type !== 'public' || imported.asymmetricKeyType !== verifier.keyType) return false;
  const details = imported.asymmetricKeyDetails;
  if (verifier.namedCurve !== undefined) return details?.namedCurve === verifier.namedCurve;
  if (verifier.keyType === 'rsa') return (details?.modulusLength ?? 0) >= MIN_RSA_BITS;
  return true;
}

/**
 * Whether `signature` is `alg`'s signature of `signingInput` by the key: false for a key that
 * does not import, or that is not one `alg` signs with (another type or curve, RSA under 2048 bits).
 */
export function verifiesWith(key: ProofKey, alg: DpopSigningAlg, signingInput: string, signature: Buffer): boolean {
  const imported = importKey(key);
  const verifier = VERIFIERS[alg];
  if (!imported || !fits(imported, verifier)) return false;
  const native = verifier.integerBytes === undefined ? signature : joseToDer(signature, verifier.integerBytes);
  if (!native) return false;
  try {
    const input = Buffer.from(signingInput, 'ascii');
    return verifier.options ? verify(verifier.digest, input, { key: imported, ...verifier.options }, native) : verify(verifier.digest, input, imported, native);
  } catch {
    return false;
  }
}
