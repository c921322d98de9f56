import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits of randomness, base64url: opaque tokens, client secrets, generated admin tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Compares a presented secret with a stored SHA-256 in constant time. */
export function matchesHash(presented: string, storedHash: Buffer | undefined): boolean {
  const presentedHash = sha256(presented);
  // Compare against something of the right length even when there is nothing stored,
  // so that "no such secret" takes as long as "wrong secret".
  const expected = storedHash?.length === presentedHash.length ? storedHash : Buffer.alloc(presentedHash.length);
  return timingSafeEqual(presentedHash, expected) && expected === storedHash;
}
