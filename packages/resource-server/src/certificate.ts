import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { certificateThumbprint, clientCertificateExtractor } from './shared/client-certificate.js';
import { parseTrustedProxies } from './shared/trusted-proxies.js';
import type { AccessTokenClaims } from './claims.js';
import { BearerError } from './errors.js';
import type { CertificateOf } from './options.js';

/** The client certificate of the TLS connection, when the API serves HTTPS itself and asks for one (`requestCert`). */
export const tlsClientCertificate: CertificateOf = clientCertificateExtractor({ trustProxy: false, clientCertHeader: undefined });

/** Where `certificateFromHeader` believes the header. */
export interface CertificateHeaderOptions {
  /**
   * The TLS-terminating proxies' addresses and CIDR ranges: a list, or a comma-separated string
   * (`'10.0.0.0/8,127.0.0.1'`). The header is read only on a connection from one of them;
   * `false` reads it from none (no proxy in front). Trusting every peer is refused.
   */
  trustProxy: false | string | readonly string[];
}

/**
 * The client certificate of the TLS connection, or else the one a trusted TLS-terminating
 * proxy puts, URL-encoded PEM, in `header` (nginx `$ssl_client_escaped_cert`), on a connection
 * from one of `options.trustProxy`. The proxy must overwrite the header; from any other peer it
 * is ignored, since anyone could send it.
 */
export function certificateFromHeader(header: string, options: CertificateHeaderOptions): CertificateOf {
  if (typeof header !== 'string' || !/^[A-Za-z0-9-]+$/.test(header)) throw new TypeError('resource server: certificateFromHeader needs a header name');
  const listed = options?.trustProxy;
  if (listed === false) return tlsClientCertificate;
  if (typeof listed !== 'string' && !Array.isArray(listed)) {
    throw new TypeError("resource server: certificateFromHeader needs trustProxy, the proxies' addresses and CIDR ranges (e.g. '10.0.0.0/8,127.0.0.1'), or false");
  }
  let trustProxy: string[];
  try {
    trustProxy = parseTrustedProxies(listed);
  } catch (error) {
    throw new TypeError(`resource server: certificateFromHeader trustProxy: ${(error as Error).message}`);
  }
  return clientCertificateExtractor({ trustProxy, clientCertHeader: header.toLowerCase() });
}

/**
 * The confirmation methods the plugin checks: `x5t#S256` here, DPoP's `jkt` in src/resource-server/dpop.ts;
 * a token bound otherwise (a `jwk`…) cannot be used at all.
 */
const SUPPORTED_CONFIRMATION = new Set(['x5t#S256', 'jkt']);

/**
 * RFC 8705 §3: a token bound to a certificate (`cnf.x5t#S256`) is accepted only from a
 * client that presents that certificate; an unbound token is a bearer token.
 */
export function checkCertificateBinding(claims: AccessTokenClaims, request: FastifyRequest, certificateOf: CertificateOf): void {
  const cnf: unknown = claims.cnf;
  if (cnf === undefined) return;
  if (typeof cnf !== 'object' || cnf === null || Object.keys(cnf).some((method) => !SUPPORTED_CONFIRMATION.has(method))) {
    throw new BearerError('invalid_token', 'the token is bound to a key in a way this API cannot check');
  }
  const expected = (cnf as Record<string, unknown>)['x5t#S256'];
  if (expected === undefined) return;
  const certificate = certificateOf(request);
  if (!certificate) throw new BearerError('invalid_token', 'the token is bound to a client certificate, and none was presented');
  if (typeof expected !== 'string' || !sameText(certificateThumbprint(certificate), expected)) {
    throw new BearerError('invalid_token', 'the token is bound to another client certificate');
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
