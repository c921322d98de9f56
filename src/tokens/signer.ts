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
 * Signs JWTs with a realm's current key of an algorithm. Which key is current comes from the
 * key store's shared cache, which a rotation invalidates on every instance as it commits; the
 * decrypted private keys are kept by key id (a kid names one key for good).
 */
export class RealmSigner {
  private readonly decrypted = new LRUCache<string, CryptoKey>({ max: 10_000 });

  constructor(
    private readonly signingKeys: SigningKeyStore,
    private readonly encryption: KeyEncryption,
  ) {}

  async sign(realm: string, alg: SigningAlg, payload: JWTPayload, typ = 'JWT'): Promise<string> {
    const { kid, key } = await this.currentKey(realm, alg);
    return new SignJWT(payload).setProtectedHeader({ alg, kid, typ }).sign(key);
  }

  private async currentKey(realm: string, alg: SigningAlg): Promise<CurrentKey> {
    const stored = (await this.signingKeys.current(realm)).find((key) => key.alg === alg);
    if (!stored) throw new Error(`realm ${realm} has no current ${alg} key`);
    const cacheKey = `${realm}/${stored.kid}`;
    let key = this.decrypted.get(cacheKey);
    if (!key) {
      key = await decryptSigningKey(realm, stored, this.encryption);
      this.decrypted.set(cacheKey, key);
    }
    return { kid: stored.kid, key };
  }
}
