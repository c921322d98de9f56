import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32;
/** Entropy is drawn from the CSPRNG in blocks, one call for many secrets, as crypto.randomUUID does. */
const BLOCK_BYTES = SECRET_BYTES * 128;
let block = Buffer.alloc(0);
let offset = 0;

/** 256 bits of randomness, base64url: opaque tokens, client secrets, generated admin tokens. */
export function randomSecret(): string {
  if (offset + SECRET_BYTES > block.length) {
    block = randomBytes(BLOCK_BYTES);
    offset = 0;
  }
  const secret = block.toString('base64url', offset, offset + SECRET_BYTES);
  block.fill(0, offset, offset + SECRET_BYTES); // a secret handed out is not kept
  offset += SECRET_BYTES;
  return secret;
}

/** One-shot `crypto.hash`: on the token endpoint's path, about half the cost of a `createHash` object. */
export function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Compares a presented secret with a stored SHA-256 (bytes, or base64) in constant time. */
export function matchesHash(presented: string, stored: Buffer | string | undefined): boolean {
  const presentedHash = sha256(presented);
  const storedHash = typeof stored === 'string' ? Buffer.from(stored, 'base64') : stored;
  // Compare against something of the right length even when there is nothing stored,
  // so that "no such secret" takes as long as "wrong secret".
  const expected = storedHash?.length === presentedHash.length ? storedHash : Buffer.alloc(presentedHash.length);
  return timingSafeEqual(presentedHash, expected) && expected === storedHash;
}
