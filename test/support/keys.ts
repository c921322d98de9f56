import { randomUUID } from 'node:crypto';
import { type CryptoKey, type JWK, exportJWK, generateKeyPair } from 'jose';

/** A client's signing key: the private key to sign with, the public JWK to register. */
export interface KeyPair {
  privateKey: CryptoKey;
  publicJwk: JWK;
  alg: string;
  kid: string;
}

export async function keyPair(alg: 'RS256' | 'ES256' | 'PS256' | 'EdDSA', kid = `${alg}-${randomUUID()}`): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }, alg, kid };
}
