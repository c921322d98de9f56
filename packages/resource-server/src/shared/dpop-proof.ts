import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DPOP_SIGNING_ALGS, type DpopSigningAlg, isDpopSigningAlg } from './dpop-algorithms.js';
import { type ProofKey, proofKey, verifiesWith } from './dpop-keys.js';

/**
 * Verifying a DPoP proof (RFC 9449 §4.3), whoever receives it: the token endpoint, UserInfo,
 * an API with the resource-server plugin. Nothing here is stored: spending the proof's `jti`
 * once is the receiver's (src/dpop/proofs.ts decides it in the database).
 */

/** RFC 9449 §4.2: the `typ` of a DPoP proof. */
export const DPOP_JWT = 'dpop+jwt';

/** How long after its `iat` a proof is accepted (RFC 9449 §11.1 leaves it to the server: "a few seconds" to minutes). */
export const PROOF_LIFETIME_SECONDS = 60;

/** A proof is a compact JWS; longer than this it is no proof a client would make (an RSA-4096 key is ~1 KiB). */
const MAX_PROOF_LENGTH = 8192;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_JTI_LENGTH = 256;

/** RFC 7517 §9.2 and RFC 7518 §6: the members of a private (or symmetric) key, which a proof's `jwk` must not hold. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

/** Why a proof is refused: `use_dpop_nonce` when only its nonce is missing or stale (RFC 9449 §8), else `invalid_dpop_proof`. */
export class DpopProofError extends Error {
  override name = 'DpopProofError';

  constructor(
    readonly code: 'invalid_dpop_proof' | 'use_dpop_nonce',
    description: string,
  ) {
    super(description);
  }
}

function refuse(description: string): never {
  throw new DpopProofError('invalid_dpop_proof', description);
}

/** What a request must show to be the one the proof was made for. */
export interface ProofExpectation {
  /** The request's method, as `htm` must say it. */
  method: string;
  /** The URL the request was sent to; its query and fragment are ignored (RFC 9449 §4.3 item 9). */
  url: string;
  /** The access token the request presents: the proof must carry its hash (`ath`, §4.3 item 12). */
  accessToken?: string | undefined;
  /** When the receiver demands nonces (§8, §9): whether it accepts the proof's. */
  nonce?: { accepts(nonce: string): boolean } | undefined;
  /** Seconds of difference allowed between the client's clock and ours, both ways. */
  clockSkewSeconds: number;
  /** Milliseconds since the epoch; now by default. */
  now?: number | undefined;
}

export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint (base64url) of the proof's key: `cnf.jkt` of what it binds (RFC 9449 §6.1). */
  thumbprint: string;
  jti: string;
  /** The last instant the proof could be accepted: its `jti` must be remembered until then. */
  acceptableUntil: Date;
}

/** RFC 9449 §4.3 item 9: the target URI without query and fragment, normalized as the WHATWG URL parser does (case, default port, dot segments). */
export function targetUri(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/** RFC 9449 §4.2 `ath`: the base64url SHA-256 of the access token's ASCII value. */
export const accessTokenHash = (token: string): string => createHash('sha256').update(token, 'ascii').digest('base64url');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON object a base64url part of a JWS encodes; undefined when it is not valid UTF-8, not JSON, or not an object. */
function jsonObjectOf(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(utf8.decode(Buffer.from(part, 'base64url')));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a proof's header says once checked: its algorithm, and its key with the key's thumbprint. */
interface ProofHeader {
  alg: DpopSigningAlg;
  key: ProofKey;
}

/**
 * Headers checked lately, by their encoded form: a client sends the same header (`typ`, `alg`,
 * `jwk`) with each of its proofs, and reading it (base64url, JSON, the key's members and their
 * thumbprint) is then done once. Only headers that passed are kept.
 */
const checkedHeaders = new LRUCache<string, ProofHeader>({ max: 1000 });

/** The header checks of RFC 9449 §4.3 (one `typ`, an asymmetric `alg`, a public `jwk` fit for it), in that order. */
function proofHeader(encodedHeader: string): ProofHeader {
  const known = checkedHeaders.get(encodedHeader);
  if (known !== undefined) return known;
  const header = jsonObjectOf(encodedHeader);
  if (!header) return refuse('the DPoP proof header is not valid JSON');
  if (typeof header.typ !== 'string' || header.typ.toLowerCase().replace(/^application\//, '') !== DPOP_JWT) {
    refuse(`the DPoP proof's typ must be ${DPOP_JWT}`);
  }
  const alg = header.alg;
  if (!isDpopSigningAlg(alg)) return refuse(`the DPoP proof's alg must be one of ${DPOP_SIGNING_ALGS.join(', ')}`);
  // RFC 7515 §4.1.11: no extension this server understands, so none it may be asked to honour (`b64: false` among them).
  if (header.crit !== undefined) refuse('the DPoP proof names critical header parameters this server does not understand (crit)');
  const jwk: unknown = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return refuse('the DPoP proof has no jwk header');
  const members = jwk as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(members, member))) refuse("the DPoP proof's jwk holds private key members");
  // RFC 7517 §4.2–4.4: a key that says what it is for must say signing, and with the proof's algorithm.
  if (
    (members.alg !== undefined && members.alg !== alg) ||
    (members.use !== undefined && members.use !== 'sig') ||
    (members.key_ops !== undefined && !(Array.isArray(members.key_ops) && members.key_ops.includes('verify')))
  ) {
    refuse("the DPoP proof's jwk is not a key for this signature (alg, use or key_ops)");
  }
  const key = proofKey(members);
  if (!key) return refuse("the DPoP proof's signature does not verify with its jwk");
  const checked = { alg, key };
  checkedHeaders.set(encodedHeader, checked);
  return checked;
}

/**
 * RFC 9449 §4.3: the checks of a proof, in its order. The header first (one compact JWS, `typ`,
 * an asymmetric `alg`, a public `jwk`), then its signature with that key, then what the payload
 * says of the request (`htm`, `htu`), its age (`iat`), the access token (`ath`) and the nonce.
 * A refusal names the check that failed and nothing the proof carried.
 */
export async function verifyDpopProof(proof: string, expect: ProofExpectation): Promise<VerifiedProof> {
  if (proof.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(proof)) refuse('the DPoP proof is not a compact JWS');
  const [encodedHeader, encodedPayload, encodedSignature] = proof.split('.') as [string, string, string];
  const { alg, key } = proofHeader(encodedHeader);
  if (!verifiesWith(key, alg, `${encodedHeader}.${encodedPayload}`, Buffer.from(encodedSignature, 'base64url'))) {
    refuse("the DPoP proof's signature does not verify with its jwk");
  }
  const payload = jsonObjectOf(encodedPayload);
  if (!payload) return refuse('the DPoP proof payload is not a JSON object');

  const { jti, htm, htu, iat, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) refuse('the DPoP proof needs a jti');
  if (htm !== expect.method) refuse(`the DPoP proof's htm must be ${expect.method}`);
  const expectedUri = targetUri(expect.url);
  // The same string as the expected URL is the same URI; any other is compared once normalized.
  if (expectedUri === undefined || typeof htu !== 'string' || (htu !== expect.url && targetUri(htu) !== expectedUri)) {
    refuse(`the DPoP proof's htu must be ${expectedUri}`);
  }
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return refuse('the DPoP proof needs an iat');
  const now = (expect.now ?? Date.now()) / 1000;
  if (iat > now + expect.clockSkewSeconds) refuse('the DPoP proof was issued in the future (iat)');
  if (iat < now - PROOF_LIFETIME_SECONDS - expect.clockSkewSeconds) refuse('the DPoP proof is too old (iat)');
  if (expect.accessToken !== undefined) {
    if (typeof ath !== 'string') refuse('the DPoP proof needs ath, the hash of the access token');
    if (!sameText(ath as string, accessTokenHash(expect.accessToken))) refuse("the DPoP proof's ath does not match the access token");
  }
  if (expect.nonce) {
    if (typeof nonce !== 'string') throw new DpopProofError('use_dpop_nonce', 'the DPoP proof needs a nonce of this server');
    if (!expect.nonce.accepts(nonce)) throw new DpopProofError('use_dpop_nonce', "the DPoP proof's nonce is stale or not this server's");
  }

  return {
    thumbprint: key.thumbprint,
    jti: jti as string,
    acceptableUntil: new Date((iat + PROOF_LIFETIME_SECONDS + expect.clockSkewSeconds) * 1000),
  };
}
