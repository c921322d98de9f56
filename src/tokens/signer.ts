import { type CryptoKey, type JWTPayload, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import type { SigningKeyStore } from '../store/signing-keys.js';
import type { KeyEncryption } from './key-encryption.js';
import { type SigningAlg, decryptSigningKey } from './signing-keys.js';

interface CurrentKey {
  kid: string;
  key: CryptoKey;
}

/**
 * Signs JWTs with a realm's current key of an algorithm. The decrypted key is kept a short
 * while: a key rotated on another instance signs here for at most that long, and stays
 * published for much longer (src/admin/keys.ts), so that what it signed still verifies.
 */
export class RealmSigner {
  private readonly keys = new LRUCache<string, CurrentKey>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly signingKeys: SigningKeyStore,
    private readonly encryption: KeyEncryption,
  ) {}

  async sign(realm: string, alg: SigningAlg, payload: JWTPayload, typ = 'JWT'): Promise<string> {
    const { kid, key } = await this.currentKey(realm, alg);
    return new SignJWT(payload).setProtectedHeader({ alg, kid, typ }).sign(key);
  }

  private async currentKey(realm: string, alg: SigningAlg): Promise<CurrentKey> {
    const cacheKey = `${realm}/${alg}`;
    const cached = this.keys.get(cacheKey);
    if (cached) return cached;
    const stored = (await this.signingKeys.current(realm)).find((key) => key.alg === alg);
    if (!stored) throw new Error(`realm ${realm} has no current ${alg} key`);
    const current = { kid: stored.kid, key: await decryptSigningKey(realm, stored, this.encryption) };
    this.keys.set(cacheKey, current);
    return current;
  }
}
