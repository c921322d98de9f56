import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32;
/** Entropy is drawn from the CSPRNG in blocks, one call for many secrets, as crypto.randomUUID does. */
const BLOCK_BYTES = SECRET_BYTES * 128;
let block = Buffer.alloc(0);
let offset = 0;

/** `length` bytes of the current block, read by `read`, then zeroed there: bytes handed out are not kept. */
function draw<T>(length: number, read: (source: Buffer, start: number) => T): T {
  if (offset + length > block.length) {
    block = randomBytes(BLOCK_BYTES);
    offset = 0;
  }
  const value = read(block, offset);
  block.fill(0, offset, offset + length);
  offset += length;
  return value;
}

/** 256 bits of randomness, base64url: opaque tokens, client secrets, generated admin tokens. */
export function randomSecret(): string {
  return draw(SECRET_BYTES, (source, start) => source.toString('base64url', start, start + SECRET_BYTES));
}

/** `length` (at most a block's) random bytes, drawn as randomSecret draws them: a call to the CSPRNG per block, not per call. */
export function drawnRandomBytes(length: number): Buffer {
  return draw(length, (source, start) => Buffer.from(source.subarray(start, start + length)));
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
