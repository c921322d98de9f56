import type { X509Certificate } from 'node:crypto';
import type { JwtAssertionDeps } from '../assertions/jwt-assertion.js';
import type { AuthMethod } from '../records/client.js';
import { clientSecret } from './client-secret.js';
import type { ClientAuthMethod } from './method.js';
import { none } from './none.js';
import { privateKeyJwt } from './private-key-jwt.js';
import { type ClientKeysOf, selfSignedTlsClientAuth } from './self-signed-tls-client-auth.js';
import { tlsClientAuth } from './tls-client-auth.js';

/** What the mutual-TLS methods (RFC 8705 §2) need: the CAs of `TLS_CA`, and the keys of clients registered by `jwks_uri`. */
export interface MutualTlsOptions {
  readonly trustedCas?: readonly X509Certificate[];
  readonly clientKeys?: ClientKeysOf;
}

/**
 * The methods this server implements, by name: `private_key_jwt` with the clients' keys and the
 * store of spent assertion ids (src/assertions/jwt-assertion.ts), the mutual-TLS methods with
 * the CAs of `TLS_CA`.
 */
export function clientAuthMethods(assertions: JwtAssertionDeps, mtls: MutualTlsOptions): ReadonlyMap<AuthMethod, ClientAuthMethod> {
  return new Map(
    [
      clientSecret('client_secret_basic'),
      clientSecret('client_secret_post'),
      privateKeyJwt(assertions),
      tlsClientAuth(mtls.trustedCas ?? []),
      selfSignedTlsClientAuth(mtls.clientKeys),
      none,
    ].map((method) => [method.name, method]),
  );
}
