import { type KeyObject, generateKeyPairSync, randomUUID, sign } from 'node:crypto';

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A client's DPoP key (ES256), making a fresh proof (RFC 9449 §4.2) for each request: a new
 * `jti` and the current `iat`. Made synchronously with node:crypto, since autocannon asks for
 * each request's headers synchronously; signing one costs the load generator some 25 µs.
 */
export class DpopProver {
  private readonly key: KeyObject;
  private readonly header: string;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
    this.key = privateKey;
    this.header = encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } });
  }

  proof(method: string, url: string): string {
    const input = `${this.header}.${encode({ jti: randomUUID(), htm: method, htu: url, iat: Math.floor(Date.now() / 1000) })}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: this.key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }
}
