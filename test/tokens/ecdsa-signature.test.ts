import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { joseToDer as joseToDerOf } from '../../packages/resource-server/src/shared/ecdsa-der.js';
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

/** The r || s of a DER signature as OpenSSL makes it (a long-form length of one byte at most). */
function rsOf(der: Buffer, integerBytes: number): Buffer {
  let offset = der[1]! & 0x80 ? 3 : 2;
  const rs = Buffer.alloc(2 * integerBytes);
  for (let index = 0; index < 2; index++) {
    const length = der[offset + 1]!;
    const integer = der.subarray(offset + 2, offset + 2 + length);
    const unsigned = integer.length > integerBytes ? integer.subarray(integer.length - integerBytes) : integer;
    unsigned.copy(rs, (index + 1) * integerBytes - unsigned.length);
    offset += 2 + length;
  }
  return rs;
}

/** DPoP proofs of P-384 and P-521 keys (packages/resource-server/src/shared/dpop-keys.ts) reach node:crypto as DER too. */
describe('ES384 and ES512 signatures into DER', () => {
  for (const [namedCurve, digest, integerBytes] of [['secp384r1', 'sha384', 48], ['secp521r1', 'sha512', 66]] as const) {
    it(`turns the r || s node:crypto makes with ${namedCurve} into the DER it makes, and refuses another length`, () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
      for (let index = 0; index < 150; index++) {
        const input = Buffer.from(`input ${index}`);
        const der = sign(digest, input, privateKey);
        const jose = sign(digest, input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
        expect(verify(digest, input, publicKey, joseToDerOf(jose, integerBytes)!)).toBe(true);
        expect(joseToDerOf(rsOf(der, integerBytes), integerBytes)).toEqual(der);
      }
      const jose = sign(digest, Buffer.from('input'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(joseToDerOf(jose.subarray(1), integerBytes)).toBeUndefined();
      expect(joseToDerOf(jose, 32)).toBeUndefined();
    });
  }
});
