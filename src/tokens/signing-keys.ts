import { type JsonWebKey, type KeyObject, createPrivateKey } from 'node:crypto';
import { type CryptoKey, type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { type NewSigningKey, SIGNING_ALGS, type SigningAlg } from '../records/signing-key.js';
import type { KeyEncryption } from './key-encryption.js';

/** The encryption context binds a private key's ciphertext to its realm and key id. */
const contextOf = (realm: string, kid: string): string => `signing-key:${realm}:${kid}`;

/** A key pair with extractable keys, for the JWKs a realm keeps. */
export interface SigningKeyPair {
  publicKey: CryptoKey | KeyObject;
  privateKey: CryptoKey | KeyObject;
}

/**
 * Where a realm's new key pairs come from: generated afresh (newKeyPair), unless the code that
 * builds the server supplies another source (the test suite: an RSA key pair takes tens of ms).
 */
export type KeyPairSource = (alg: SigningAlg) => Promise<SigningKeyPair>;

export const newKeyPair: KeyPairSource = (alg) => generateKeyPair(alg, { extractable: true, modulusLength: 2048 });

export async function generateSigningKey(realm: string, alg: SigningAlg, encryption: KeyEncryption, keyPairs: KeyPairSource = newKeyPair): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await keyPairs(alg);
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk: JWK = { ...exported, kid, alg, use: 'sig' };
  const privateJwk = Buffer.from(JSON.stringify(await exportJWK(privateKey)));
  return { kid, alg, publicJwk, privateJwkEncrypted: encryption.encrypt(privateJwk, contextOf(realm, kid)) };
}

export function generateRealmKeys(realm: string, encryption: KeyEncryption, keyPairs: KeyPairSource): Promise<NewSigningKey[]> {
  return Promise.all(SIGNING_ALGS.map((alg) => generateSigningKey(realm, alg, encryption, keyPairs)));
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
