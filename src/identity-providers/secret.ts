import type { KeyEncryption } from '../tokens/key-encryption.js';

/**
 * The client secrets of upstream providers, encrypted under MASTER_KEY as signing keys are:
 * the realm and the alias are authenticated with the ciphertext, so that a sealed secret
 * copied to another provider's row does not open.
 */
const contextOf = (realm: string, alias: string) => `identity provider secret\0${realm}\0${alias}`;

export function sealClientSecret(encryption: KeyEncryption, realm: string, alias: string, secret: string): Buffer {
  return encryption.encrypt(Buffer.from(secret, 'utf8'), contextOf(realm, alias));
}

export function openClientSecret(encryption: KeyEncryption, realm: string, alias: string, sealed: Buffer): string {
  return encryption.decrypt(sealed, contextOf(realm, alias)).toString('utf8');
}
