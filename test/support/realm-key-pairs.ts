import { type KeyPairSource, type SigningKeyPair, newKeyPair } from '../../src/tokens/signing-keys.js';

/**
 * RSA key pairs made once per test worker (an RSA-2048 pair takes tens of ms; an EC one a tenth
 * of a millisecond, and is made afresh each time).
 */
const rsaPairs: (Promise<SigningKeyPair> | undefined)[] = [];

/**
 * The key pairs of one test database's realms and rotations (AppDeps.keyPairs): its RSA pairs are
 * the worker's, in order, so that no two realms or rotations of one database share a pair; another
 * database of the same worker is handed the same ones again. The root realm is left out
 * (`rootKeyPairs`). Instances over one database must share one source.
 */
export function testKeyPairs(): KeyPairSource {
  let next = 0;
  return (alg) => (alg === 'RS256' ? pooled(rsaPairs, next++) : newKeyPair(alg));
}

/** The pair at `index` of `pairs`, made the first time it is asked for. */
function pooled(pairs: (Promise<SigningKeyPair> | undefined)[], index: number): Promise<SigningKeyPair> {
  let pair = pairs[index];
  if (!pair) {
    pair = newKeyPair('RS256');
    pairs[index] = pair;
    // A failure is not kept: the next database that asks makes the pair again.
    pair.catch(() => pairs[index] === pair && (pairs[index] = undefined));
  }
  return pair;
}

/** How many root realms in a row get RSA pairs of their own: more than any test file runs at once. */
const ROOT_ROTATION = 8;
const rootPairs: (Promise<SigningKeyPair> | undefined)[] = [];
let nextRoot = 0;

/**
 * The key pairs of a test application's root realm (prepare's keyPairs). Every application has
 * the same root issuer, so no two of the last ROOT_ROTATION applications of a worker share a
 * pair: a token of one application's root realm is never verified by another's. The pairs are
 * handed out in turn, made once each.
 */
export function rootKeyPairs(): KeyPairSource {
  const index = nextRoot++ % ROOT_ROTATION;
  return (alg) => (alg === 'RS256' ? pooled(rootPairs, index) : newKeyPair(alg));
}
