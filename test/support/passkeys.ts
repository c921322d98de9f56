import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { hiddenInputs, unescape } from './flow.js';

/**
 * A software authenticator for tests that sign in with a passkey through HTTP: ES256 keys of
 * node:crypto, "none" attestation, user verification, the origin of the test app's BASE_URL.
 * (test/authn/passkeys.test.ts has one, on the CBOR and hashes here, that can also bend every field.)
 */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FLAG = { up: 0x01, uv: 0x04, at: 0x40 };
export const b64 = (bytes: Buffer): string => bytes.toString('base64url');
export const sha = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();

/** The little CBOR (RFC 8949) an attestation object and a COSE key need. */
export function cbor(value: number | string | Buffer | Map<number | string, unknown>): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    const out = Buffer.alloc(3);
    out[0] = (major << 5) | 25;
    out.writeUInt16BE(length, 1);
    return out;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item as Buffer)])]);
}

interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export class SoftwareAuthenticator {
  private readonly credentials: SoftCredential[] = [];

  constructor(private readonly origin: string) {}

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(), as @simplewebauthn/browser returns it. */
  register(options: Json): Json {
    const rpId = options.rp.id as string;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credential: SoftCredential = { id: randomBytes(32), privateKey, rpId, userHandle: options.user.id, counter: 0 };
    const coseKey = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([sha(rpId), Buffer.from([FLAG.up | FLAG.uv | FLAG.at]), Buffer.alloc(4), Buffer.alloc(16), idLength, credential.id, coseKey]);
    this.credentials.push(credential);
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64(cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]))),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): one of allowCredentials, or (none listed) a discoverable credential of the RP ID. */
  authenticate(options: Json): Json {
    const allowed = ((options.allowCredentials ?? []) as Array<{ id: string }>).map((descriptor) => descriptor.id);
    const credential = this.credentials.find((candidate) => candidate.rpId === options.rpId && (allowed.length === 0 || allowed.includes(b64(candidate.id))));
    if (!credential) throw new Error('the authenticator holds no fitting credential');
    credential.counter++;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha(credential.rpId), Buffer.from([FLAG.up | FLAG.uv]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(sign('sha256', Buffer.concat([authData, sha(clientDataJSON)]), credential.privateKey)),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

export interface PasskeyForm {
  action: string | undefined;
  hidden: Record<string, string>;
  options: Json;
}

/** The form of a page that holds a passkey button of this ceremony: where it posts, its hidden fields, the ceremony's options. */
export function passkeyForm(page: string, ceremony: 'authentication' | 'registration'): PasskeyForm {
  for (const [, action, body] of page.matchAll(/<form method="post"(?: action="([^"]*)")?>([\s\S]*?)<\/form>/g)) {
    const options = new RegExp(`data-passkey="${ceremony}" data-passkey-options="([^"]*)"`).exec(body!)?.[1];
    if (options !== undefined) return { action: action && unescape(action), hidden: hiddenInputs(body!), options: JSON.parse(unescape(options)) };
  }
  throw new Error(`no ${ceremony} form on the page: ${page.slice(0, 2000)}`);
}
