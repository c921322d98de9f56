import type { X509Certificate } from 'node:crypto';
import type { AuthMethod } from '../clients/record.js';
import { matchesHash } from '../crypto/hash.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { PresentedCredentials } from './credentials.js';
import { type PrivateKeyJwtDeps, privateKeyJwt } from './private-key-jwt.js';
import { type ClientKeysOf, selfSignedTlsClientAuth, tlsClientAuth } from './tls.js';

/** What a method may need of the request beside the credentials it presents. */
export interface ClientAuthContext {
  readonly realm: RequestRealm;
  /** The URL of the endpoint the request reached: an audience a client assertion may name. */
  readonly endpointUrl: string;
  /** The TLS client certificate of the request: from the connection, or from a trusted proxy's header. */
  readonly certificate: X509Certificate | undefined;
}

/** One `token_endpoint_auth_method`: whether the presented credentials prove the client. */
export interface ClientAuthMethod {
  readonly name: AuthMethod;
  verify(client: Client, presented: PresentedCredentials, context: ClientAuthContext): boolean | Promise<boolean>;
}

const clientSecretBasic: ClientAuthMethod = {
  name: 'client_secret_basic',
  verify: (client, presented) =>
    presented.form === 'client_secret_basic' && presented.secret !== undefined && matchesHash(presented.secret, client.secretHash),
};

const clientSecretPost: ClientAuthMethod = {
  name: 'client_secret_post',
  verify: (client, presented) =>
    presented.form === 'client_secret_post' && presented.secret !== undefined && matchesHash(presented.secret, client.secretHash),
};

/** Public clients (RFC 6749 §2.1) identify themselves with client_id alone. */
const none: ClientAuthMethod = {
  name: 'none',
  verify: (client, presented) => presented.form === 'client_id_only' && client.client_type === 'public',
};

/** What the mutual-TLS methods (RFC 8705 §2) need: the CAs of `TLS_CA`, and the keys of clients registered by `jwks_uri`. */
export interface MutualTlsOptions {
  readonly trustedCas?: readonly X509Certificate[];
  readonly clientKeys?: ClientKeysOf;
}

/**
 * The methods this server implements, by name: `private_key_jwt` with the replay store of
 * assertion jtis and the clients' keys (src/client-auth/private-key-jwt.ts), the mutual-TLS
 * methods with the CAs of `TLS_CA` (src/client-auth/tls.ts).
 */
export function clientAuthMethods(keyJwt: PrivateKeyJwtDeps, mtls: MutualTlsOptions): ReadonlyMap<AuthMethod, ClientAuthMethod> {
  return new Map(
    [
      clientSecretBasic,
      clientSecretPost,
      privateKeyJwt(keyJwt),
      tlsClientAuth(mtls.trustedCas ?? []),
      selfSignedTlsClientAuth(mtls.clientKeys),
      none,
    ].map((method) => [method.name, method]),
  );
}
