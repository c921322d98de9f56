import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with MASTER_KEY, for private signing keys at rest. The stored form is
 * iv || tag || ciphertext; `context` (realm and key id) is authenticated, so that a
 * ciphertext copied to another row does not decrypt.
 */
export class KeyEncryption {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  encrypt(plaintext: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv).setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  /**
   * A 256-bit key for another purpose (cookie signatures, CSRF tokens), derived from
   * MASTER_KEY with HKDF-SHA256 (RFC 5869), so that every instance derives the same one.
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `realmgate ${purpose}`, 32));
  }

  /** Throws when the key or the context differs from those that encrypted it. */
  decrypt(sealed: Buffer, context: string): Buffer {
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, iv).setAAD(Buffer.from(context)).setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  }
}
