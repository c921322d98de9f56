import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToJose, joseToDer } from '../../src/tokens/ecdsa-signature.js';

/** The ES256 encodings against node:crypto's own conversion, over enough signatures to meet r or s shorter than 32 bytes. */
describe('ES256 signature encodings', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

  it('turns DER into the r || s node:crypto makes, and back into DER it verifies', () => {
    let shortIntegers = 0;
    // Until some 500 signatures and two with a short r or s (about 1 in 128 has one) have been met.
    for (let index = 0; index < 5000 && (index < 500 || shortIntegers < 2); index++) {
      const input = Buffer.from(`input ${index}`);
      const der = sign('sha256', input, privateKey);
      const jose = derToJose(der);
      if (der[3]! < 32 || der[5 + der[3]!]! < 32) shortIntegers++;
      expect(verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
      expect(joseToDer(jose)).toEqual(der);
      const joseByNode = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(verify('sha256', input, publicKey, joseToDer(joseByNode)!)).toBe(true);
    }
    expect(shortIntegers).toBeGreaterThanOrEqual(2);
  });

  it('refuses an r || s of another length, and a changed signature does not verify', () => {
    const input = Buffer.from('input');
    const jose = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    expect(joseToDer(jose.subarray(0, 63))).toBeUndefined();
    expect(joseToDer(Buffer.concat([jose, Buffer.of(0)]))).toBeUndefined();
    expect(joseToDer(Buffer.alloc(0))).toBeUndefined();
    const changed = Buffer.from(jose);
    changed[40] = changed[40]! ^ 1;
    expect(verify('sha256', input, publicKey, joseToDer(changed)!)).toBe(false);
    expect(verify('sha256', input, publicKey, joseToDer(Buffer.alloc(64))!)).toBe(false);
  });
});
