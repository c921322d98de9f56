import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { drawnRandomBytes, matchesHash, randomSecret, sha256 } from '../../src/secrets.js';
import { jtiTime, timeOrderedJti } from '../../src/tokens/jti.js';

describe('secrets and their hashes', () => {
  it('makes secrets of 256 bits, never twice the same, across many entropy blocks', () => {
    const secrets = Array.from({ length: 5000 }, randomSecret);
    expect(new Set(secrets).size).toBe(5000);
    for (const secret of secrets.slice(0, 300)) expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    // Every byte value shows up: the blocks are not zeroed before they are handed out.
    const bytes = new Set(secrets.flatMap((secret) => [...Buffer.from(secret, 'base64url')]));
    expect(bytes.size).toBe(256);
  });

  it('draws random bytes from the same blocks, never the same twice, the secrets between them', () => {
    const drawn = Array.from({ length: 3000 }, (_, index) => (index % 3 === 0 ? Buffer.from(randomSecret(), 'base64url') : drawnRandomBytes(16)));
    expect(new Set(drawn.map((bytes) => bytes.toString('hex'))).size).toBe(3000);
    expect(drawn[1]).toHaveLength(16);
    // A copy: drawing more (which zeroes what was handed out in the block) leaves it as it was.
    const kept = Buffer.from(drawn[1]!);
    drawnRandomBytes(16);
    expect(drawn[1]).toEqual(kept);
  });

  it('makes JWT ids of version 7 that carry their moment, never twice the same', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const jtis = Array.from({ length: 3000 }, () => timeOrderedJti(at));
    expect(new Set(jtis).size).toBe(3000);
    for (const jti of jtis.slice(0, 100)) expect(jtiTime(jti)).toBe(at);
  });

  it('compares a presented secret with a stored SHA-256', () => {
    const stored = createHash('sha256').update('s3cret').digest();
    expect(sha256('s3cret').equals(stored)).toBe(true);
    expect(matchesHash('s3cret', stored)).toBe(true);
    expect(matchesHash('s3cres', stored)).toBe(false);
    expect(matchesHash('s3cret', undefined)).toBe(false);
    expect(matchesHash('s3cret', Buffer.alloc(32))).toBe(false);
    expect(matchesHash('s3cret', Buffer.alloc(3))).toBe(false);
  });

  it('compares a presented secret with a stored SHA-256 held as base64, as cached clients hold it', () => {
    const stored = createHash('sha256').update('s3cret').digest('base64');
    expect(matchesHash('s3cret', stored)).toBe(true);
    expect(matchesHash('s3cres', stored)).toBe(false);
    expect(matchesHash('s3cret', '')).toBe(false);
    expect(matchesHash('s3cret', Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(matchesHash('s3cret', 'AAAA')).toBe(false);
  });
});
