import { type KeyObject, sign as signBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { SigningKeyStore } from '../store/signing-keys.js';
import type { KeyEncryption } from './key-encryption.js';
import { SignatureBatch } from './signature-batch.js';
import type { SigningAlg } from '../records/signing-key.js';
import { decryptSigningKey } from './signing-keys.js';

/** A decrypted private key, and the protected headers (RFC 7515 §7.1) of its tokens by `typ`, encoded once. */
interface SigningKey {
  kid: string;
  key: KeyObject;
  headers: Map<string, string>;
}

const signInThreadPool = promisify(signBytes);

const base64url = (json: unknown): string => Buffer.from(JSON.stringify(json)).toString('base64url');

/**
 * Signs JWTs with a realm's current key of an algorithm. Which key is current comes from the
 * key store's shared cache, which a rotation invalidates on every instance as it commits; the
 * decrypted private keys are kept by key id (a kid names one key for good).
 */
export class RealmSigner {
  private readonly decrypted = new LRUCache<string, SigningKey>({ max: 10_000 });
  /** ES256 signatures, made with those of the other requests of the same turn of the event loop. */
  private readonly es256 = new SignatureBatch();

  constructor(
    private readonly signingKeys: SigningKeyStore,
    private readonly encryption: KeyEncryption,
  ) {}

  /**
   * A JWS in compact serialization (RFC 7515 §7.1), signed by Node's own signature rather
   * than WebCrypto's, which costs several times more per token. An ES256 signature (r || s,
   * RFC 7518 §3.4) takes some 25 µs and is made on the event loop, at the end of its turn with
   * the others of that turn (./signature-batch.ts); an RS256 one (PKCS #1 v1.5, §3.3) some
   * 400 µs, so it is made on libuv's thread pool, off the event loop that serves the other
   * requests meanwhile.
   */
  async sign(realm: string, alg: SigningAlg, payload: JWTPayload, typ = 'JWT'): Promise<string> {
    const { kid, key, headers } = await this.currentKey(realm, alg);
    let header = headers.get(typ);
    if (header === undefined) {
      header = base64url({ alg, kid, typ });
      headers.set(typ, header);
    }
    const input = `${header}.${base64url(payload)}`;
    const signature = alg === 'ES256' ? await this.es256.sign(key, input) : await signInThreadPool('sha256', Buffer.from(input), key);
    return `${input}.${signature.toString('base64url')}`;
  }

  private async currentKey(realm: string, alg: SigningAlg): Promise<SigningKey> {
    const stored = (await this.signingKeys.current(realm)).find((key) => key.alg === alg);
    if (!stored) throw new Error(`realm ${realm} has no current ${alg} key`);
    const cacheKey = `${realm}/${stored.kid}`;
    let key = this.decrypted.get(cacheKey);
    if (!key) {
      key = { kid: stored.kid, key: await decryptSigningKey(realm, stored, this.encryption), headers: new Map() };
      this.decrypted.set(cacheKey, key);
    }
    return key;
  }
}
