import { type JsonWebKey, type KeyObject, createPublicKey, verify } from 'node:crypto';
import type { JWK } from 'jose';
import type { SigningAlg } from '../records/signing-key.js';
import { joseToDer } from './ecdsa-signature.js';

/**
 * The JWSs a realm signed itself (its access tokens), read with node:crypto on the event loop
 * rather than through jose's `jwtVerify`, which verifies with WebCrypto: a round trip through
 * libuv's thread pool per token, several times the signature check's own cost under load.
 * Nothing here throws on what a client sends: a malformed token is undefined.
 */

/** Three base64url parts; the signature is never empty for the algorithms a realm signs with. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** RFC 7518 §3.3 (PKCS #1 v1.5) as it is; §3.4 (ECDSA's r || s) in the DER node:crypto reads with a bare key (./ecdsa-signature.ts). */
const nativeSignature = (alg: SigningAlg, signature: Buffer): Buffer | undefined => (alg === 'ES256' ? joseToDer(signature) : signature);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON object a base64url part encodes; undefined when it is not valid UTF-8, not JSON, or not an object. */
function jsonObjectOf(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(utf8.decode(Buffer.from(part, 'base64url')));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A compact JWS, split; its payload is read only once the signature verifies. */
export interface CompactJws {
  header: Record<string, unknown>;
  signingInput: string;
  encodedPayload: string;
  signature: Buffer;
}

/** The token's protected header and parts, or undefined when it is no compact JWS with a JSON object header. */
export function splitJws(token: string): CompactJws | undefined {
  if (!COMPACT_JWS.test(token)) return undefined;
  const [encodedHeader, encodedPayload, encodedSignature] = token.split('.') as [string, string, string];
  const header = jsonObjectOf(encodedHeader);
  if (!header) return undefined;
  return { header, signingInput: `${encodedHeader}.${encodedPayload}`, encodedPayload, signature: Buffer.from(encodedSignature, 'base64url') };
}

/**
 * The payload of `jws` when `key` signed it with `alg`, else undefined. A `crit` header is
 * refused: no extension is understood here (RFC 7515 §4.1.11), `b64: false` among them.
 */
export function verifiedPayload(jws: CompactJws, key: KeyObject, alg: SigningAlg): Record<string, unknown> | undefined {
  if (jws.header.alg !== alg || jws.header.crit !== undefined) return undefined;
  const signature = nativeSignature(alg, jws.signature);
  if (!signature) return undefined;
  let valid: boolean;
  try {
    valid = verify('sha256', Buffer.from(jws.signingInput, 'ascii'), key, signature);
  } catch {
    return undefined;
  }
  return valid ? jsonObjectOf(jws.encodedPayload) : undefined;
}

/** A realm's published key, for `verifiedPayload`. */
export const importPublicKey = (jwk: JWK): KeyObject => createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
