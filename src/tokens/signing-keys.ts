import { type JsonWebKey, type KeyObject, createPrivateKey } from 'node:crypto';
import { type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { type NewSigningKey, SIGNING_ALGS, type SigningAlg } from '../records/signing-key.js';
import type { KeyEncryption } from './key-encryption.js';

/** The encryption context binds a private key's ciphertext to its realm and key id. */
const contextOf = (realm: string, kid: string): string => `signing-key:${realm}:${kid}`;

export async function generateSigningKey(realm: string, alg: SigningAlg, encryption: KeyEncryption): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk: JWK = { ...exported, kid, alg, use: 'sig' };
  const privateJwk = Buffer.from(JSON.stringify(await exportJWK(privateKey)));
  return { kid, alg, publicJwk, privateJwkEncrypted: encryption.encrypt(privateJwk, contextOf(realm, kid)) };
}

export function generateRealmKeys(realm: string, encryption: KeyEncryption): Promise<NewSigningKey[]> {
  return Promise.all(SIGNING_ALGS.map((alg) => generateSigningKey(realm, alg, encryption)));
}

/**
 * The private key, for signing with node:crypto; throws when MASTER_KEY is not the one that
 * encrypted it. A KeyObject made from the JWK itself: converting a non-extractable CryptoKey
 * with KeyObject.from() is deprecated (DEP0204).
 */
export async function decryptSigningKey(
  realm: string,
  key: { kid: string; alg: string; privateJwkEncrypted: Buffer },
  encryption: KeyEncryption,
): Promise<KeyObject> {
  const jwk = JSON.parse(encryption.decrypt(key.privateJwkEncrypted, contextOf(realm, key.kid)).toString('utf8')) as JWK;
  return createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
}
