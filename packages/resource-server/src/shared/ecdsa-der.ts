/**
 * ECDSA signatures from JWS's r || s (RFC 7518 §3.4) to the DER `SEQUENCE { INTEGER r,
 * INTEGER s }` that OpenSSL reads natively. node:crypto converts it itself when given
 * `{ key, dsaEncoding: 'ieee-p1363' }`, but a key passed inside an options object is prepared
 * anew at every call (`getKeyObjectSlots` in the profiles): on Node 24 a P-256 verification took
 * some 65 µs with the bare KeyObject and 97 µs with the options object. Converting here costs a
 * few hundred nanoseconds.
 */

/** One integer of r || s as a DER INTEGER's content: no leading zeros, and a zero before a high bit. */
function derInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return trimmed[0]! & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed;
}

/** A DER length: one byte below 128, else 0x81 and one byte (an ECDSA signature of P-521 is at most 139 bytes). */
const derLength = (length: number): Buffer => (length < 0x80 ? Buffer.of(length) : Buffer.of(0x81, length));

/**
 * The DER form of an r || s signature whose integers are `integerBytes` long each (32 for
 * P-256, 48 for P-384, 66 for P-521); undefined when it is not twice that long.
 */
export function joseToDer(jose: Buffer, integerBytes: number): Buffer | undefined {
  if (jose.length !== 2 * integerBytes) return undefined;
  const r = derInteger(jose.subarray(0, integerBytes));
  const s = derInteger(jose.subarray(integerBytes));
  const body = Buffer.concat([Buffer.of(0x02, r.length), r, Buffer.of(0x02, s.length), s]);
  return Buffer.concat([Buffer.of(0x30), derLength(body.length), body]);
}
