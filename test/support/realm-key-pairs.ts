import { type KeyPairSource, type SigningKeyPair, newKeyPair } from '../../src/tokens/signing-keys.js';

/**
 * RSA key pairs made once per test worker (an RSA-2048 pair takes tens of ms; an EC one a tenth
 * of a millisecond, and is made afresh each time).
 */
const rsaPairs: (Promise<SigningKeyPair> | undefined)[] = [];

/**
 * The key pairs of one test database's realms and rotations (AppDeps.keyPairs): its RSA pairs are
 * the worker's, in order, so that no two realms or rotations of one database share a pair; another
 * database of the same worker is handed the same ones again. The root realm is left out (prepare
 * makes its keys afresh): every test application's root realm has keys of its own. Instances over
 * one database must share one source.
 */
export function testKeyPairs(): KeyPairSource {
  let next = 0;
  return (alg) => {
    if (alg !== 'RS256') return newKeyPair(alg);
    const index = next++;
    let pair = rsaPairs[index];
    if (!pair) {
      pair = newKeyPair(alg);
      rsaPairs[index] = pair;
      // A failure is not kept: the next database that asks makes the pair again.
      pair.catch(() => rsaPairs[index] === pair && (rsaPairs[index] = undefined));
    }
    return pair;
  };
}
