import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { matchesHash, randomSecret, sha256 } from '../../src/secrets.js';

describe('secrets and their hashes', () => {
  it('makes secrets of 256 bits, never twice the same, across many entropy blocks', () => {
    const secrets = Array.from({ length: 5000 }, randomSecret);
    expect(new Set(secrets).size).toBe(5000);
    for (const secret of secrets.slice(0, 300)) expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    // Every byte value shows up: the blocks are not zeroed before they are handed out.
    const bytes = new Set(secrets.flatMap((secret) => [...Buffer.from(secret, 'base64url')]));
    expect(bytes.size).toBe(256);
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
