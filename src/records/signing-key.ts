import type { JWK } from 'jose';

/** Every realm keeps one current key of each (CONTRACT.md §5). */
export const SIGNING_ALGS = ['RS256', 'ES256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export interface NewSigningKey {
  kid: string;
  alg: SigningAlg;
  publicJwk: JWK;
  privateJwkEncrypted: Buffer;
}
