import { drawnRandomBytes } from '../secrets.js';

const TIME_ORDERED = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A JWT access token's `jti`: a UUID of version 7 (RFC 9562 §5.7), whose first 48 bits are
 * the moment (epoch ms) the token was issued at, and 74 random bits. `iat` has seconds only;
 * this tells a token issued just after a person's password change from one issued just before
 * it (src/store/revoked-jwts.ts).
 */
export function timeOrderedJti(atMs: number): string {
  const bytes = drawnRandomBytes(16);
  bytes.writeUIntBE(Math.floor(atMs), 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The moment (epoch ms) a `timeOrderedJti` carries; undefined for any other jti (one of version 4). */
export function jtiTime(jti: string): number | undefined {
  const match = TIME_ORDERED.exec(jti);
  return match ? Number.parseInt(match[1]! + match[2]!, 16) : undefined;
}
