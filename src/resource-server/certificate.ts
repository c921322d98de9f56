import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { certificateThumbprint, clientCertificateExtractor } from '../http/client-certificate.js';
import type { AccessTokenClaims } from './claims.js';
import { BearerError } from './errors.js';
import type { CertificateOf } from './options.js';

/** The client certificate of the TLS connection, when the API serves HTTPS itself and asks for one (`requestCert`). */
export const tlsClientCertificate: CertificateOf = clientCertificateExtractor({ trustProxy: false, clientCertHeader: undefined });

/**
 * The client certificate of the TLS connection, or else the one a trusted TLS-terminating
 * proxy puts, URL-encoded PEM, in `header` (nginx `$ssl_client_escaped_cert`). Use it only
 * behind such a proxy, which must overwrite the header: anyone else could send it.
 */
export function certificateFromHeader(header: string): CertificateOf {
  if (typeof header !== 'string' || !/^[A-Za-z0-9-]+$/.test(header)) throw new TypeError('resource server: certificateFromHeader needs a header name');
  return clientCertificateExtractor({ trustProxy: true, clientCertHeader: header.toLowerCase() });
}

/** The confirmation methods checked here; a token bound otherwise (DPoP's `jkt`, a `jwk`…) cannot be used as a bearer token. */
const SUPPORTED_CONFIRMATION = new Set(['x5t#S256']);

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
