/**
 * ES256 signatures between the two encodings: JWS's r || s of 32 bytes each (RFC 7518 §3.4)
 * and the DER `SEQUENCE { INTEGER r, INTEGER s }` that OpenSSL makes and reads natively.
 * node:crypto converts them itself when given `{ key, dsaEncoding: 'ieee-p1363' }`, but a key
 * passed inside an options object is prepared anew at every call: measured on Node 24, a
 * P-256 signature took some 30 µs with the bare KeyObject and 63 µs with the options object,
 * a verification 65 µs against 97 µs. Converting here costs a few hundred nanoseconds.
 */

import { joseToDer as joseToDerOf } from '@realmgate/resource-server/shared/ecdsa-der';

const P256_INTEGER_BYTES = 32;

/** The r || s form of a DER ECDSA signature of P-256, as OpenSSL makes it. */
export function derToJose(der: Buffer): Buffer {
  const jose = Buffer.alloc(2 * P256_INTEGER_BYTES);
  // The sequence's length fits in one byte for P-256 (at most 70); a long form is skipped all the same.
  let offset = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
  for (let index = 0; index < 2; index++) {
    const length = der[offset + 1]!;
    let start = offset + 2;
    let bytes = length;
    // A leading zero keeps a positive integer's high bit clear; r || s has none beyond 32 bytes.
    while (bytes > P256_INTEGER_BYTES) {
      start++;
      bytes--;
    }
    der.copy(jose, index * P256_INTEGER_BYTES + (P256_INTEGER_BYTES - bytes), start, start + bytes);
    offset += 2 + length;
  }
  return jose;
}

/** The DER form of an r || s signature of P-256; undefined when it is not 64 bytes. */
export const joseToDer = (jose: Buffer): Buffer | undefined => joseToDerOf(jose, P256_INTEGER_BYTES);
