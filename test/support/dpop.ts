import { createHash, randomUUID } from 'node:crypto';
import { type CryptoKey, type JWK, SignJWT, base64url, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

/** What a test may change of a proof: any claim or header member (undefined leaves one out). */
export interface ProofOptions {
  accessToken?: string;
  nonce?: string;
  /** Seconds since the epoch; now by default. */
  iat?: number;
  jti?: string;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

/** RFC 9449 §4.2 `ath`. */
export const ath = (token: string): string => createHash('sha256').update(token, 'ascii').digest('base64url');

/** A client's DPoP key pair, making proofs as a client does (RFC 9449 §4), and bad ones on request. */
export class DpopKey {
  private constructor(
    readonly alg: string,
    readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    readonly privateJwk: JWK,
    /** RFC 7638 SHA-256 thumbprint: what `cnf.jkt` and `dpop_jkt` say. */
    readonly thumbprint: string,
  ) {}

  static async generate(alg = 'ES256'): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    return new DpopKey(alg, privateKey, publicJwk, await exportJWK(privateKey), await calculateJwkThumbprint(publicJwk, 'sha256'));
  }

  /** A proof for `method` and `url`, with `ath` when an access token is given. */
  proof(method: string, url: string, options: ProofOptions = {}): Promise<string> {
    const payload: Record<string, unknown> = {
      jti: options.jti ?? randomUUID(),
      htm: method,
      htu: url,
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      ...(options.accessToken === undefined ? {} : { ath: ath(options.accessToken) }),
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
      ...options.claims,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    const header: Record<string, unknown> = { typ: 'dpop+jwt', alg: this.alg, jwk: this.publicJwk, ...options.header };
    for (const [name, value] of Object.entries(header)) if (value === undefined) delete header[name];
    return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(this.privateKey);
  }
}

/** A proof made without a signature (`alg: none`), which no server may accept. */
export function unsignedProof(key: DpopKey, method: string, url: string): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  const header = { typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk };
  const payload = { jti: randomUUID(), htm: method, htu: url, iat: Math.floor(Date.now() / 1000) };
  return `${encode(header)}.${encode(payload)}.`;
}

/** A proof MACed with a shared secret (HS256) though it names a public key, which no server may accept. */
export function hmacProof(key: DpopKey, method: string, url: string): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: method, htu: url, iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.publicJwk } as { alg: string })
    .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
}
