import { KeyObject, sign as signBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { SigningKeyStore } from '../store/signing-keys.js';
import type { KeyEncryption } from './key-encryption.js';
import { type SigningAlg, decryptSigningKey } from './signing-keys.js';

interface CurrentKey {
  kid: string;
  key: KeyObject;
}

const signInThreadPool = promisify(signBytes);

const base64url = (json: unknown): string => Buffer.from(JSON.stringify(json)).toString('base64url');

/**
 * Signs JWTs with a realm's current key of an algorithm. Which key is current comes from the
 * key store's shared cache, which a rotation invalidates on every instance as it commits; the
 * decrypted private keys are kept by key id (a kid names one key for good).
 */
export class RealmSigner {
  private readonly decrypted = new LRUCache<string, KeyObject>({ max: 10_000 });

  constructor(
    private readonly signingKeys: SigningKeyStore,
    private readonly encryption: KeyEncryption,
  ) {}

  /**
   * A JWS in compact serialization (RFC 7515 §7.1), signed by Node's own signature rather
   * than WebCrypto's, which costs several times more per token. An ES256 signature (r || s,
   * RFC 7518 §3.4) takes some 25 µs and is made at once; an RS256 one (PKCS #1 v1.5, §3.3)
   * some 400 µs, so it is made on libuv's thread pool, off the event loop that serves the
   * other requests meanwhile.
   */
  async sign(realm: string, alg: SigningAlg, payload: JWTPayload, typ = 'JWT'): Promise<string> {
    const { kid, key } = await this.currentKey(realm, alg);
    const input = `${base64url({ alg, kid, typ })}.${base64url(payload)}`;
    const signature =
      alg === 'ES256' ? signBytes('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : await signInThreadPool('sha256', Buffer.from(input), key);
    return `${input}.${signature.toString('base64url')}`;
  }

  private async currentKey(realm: string, alg: SigningAlg): Promise<CurrentKey> {
    const stored = (await this.signingKeys.current(realm)).find((key) => key.alg === alg);
    if (!stored) throw new Error(`realm ${realm} has no current ${alg} key`);
    const cacheKey = `${realm}/${stored.kid}`;
    let key = this.decrypted.get(cacheKey);
    if (!key) {
      key = KeyObject.from(await decryptSigningKey(realm, stored, this.encryption));
      this.decrypted.set(cacheKey, key);
    }
    return { kid: stored.kid, key };
  }
}
