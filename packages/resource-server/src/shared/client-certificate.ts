import { X509Certificate, createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { type TrustedProxies, trustedPeer } from './trusted-proxies.js';

/** Where a request's client certificate may come from (CONTRACT.md §1). */
export interface ClientCertificateSource {
  /** `TRUST_PROXY`: the header is believed only on a connection from one of these peers. */
  readonly trustProxy: TrustedProxies;
  /** `CLIENT_CERT_HEADER`, lower-case: the URL-encoded PEM certificate (nginx `$ssl_client_escaped_cert`). */
  readonly clientCertHeader: string | undefined;
}

export type ClientCertificateOf = (request: FastifyRequest) => X509Certificate | undefined;

/**
 * The client certificate of a request, for mutual-TLS client authentication and
 * certificate-bound tokens (RFC 8705):
 *
 * - from the TLS connection when the server terminates TLS itself and the client presented
 *   one (the handshake proved the client holds its private key; the chain is checked by the
 *   authentication method, not by Node, so that certificates are requested, not required);
 * - otherwise, only with `TRUST_PROXY` and `CLIENT_CERT_HEADER`, from that header, which the
 *   load balancer that terminated TLS sets, and only on a connection from one of the
 *   `TRUST_PROXY` addresses (the socket's peer, never `X-Forwarded-For`). Otherwise the header
 *   is ignored: anyone could send it.
 *
 * A header that does not hold one certificate is treated as no certificate. The answer is
 * cached per request, since client authentication and the token endpoint both ask.
 */
export function clientCertificateExtractor(source: ClientCertificateSource): ClientCertificateOf {
  const cache = new WeakMap<FastifyRequest, X509Certificate | null>();
  const header = source.trustProxy ? source.clientCertHeader : undefined;
  const trusted = trustedPeer(source.trustProxy);
  const fromProxy = (request: FastifyRequest) =>
    header !== undefined && trusted(request.raw.socket?.remoteAddress) ? fromHeader(request.headers[header]) : undefined;
  return (request) => {
    let certificate = cache.get(request);
    if (certificate === undefined) {
      certificate = fromConnection(request) ?? fromProxy(request) ?? null;
      cache.set(request, certificate);
    }
    return certificate ?? undefined;
  };
}

/** RFC 8705 §3.1 `x5t#S256`: the base64url SHA-256 of the certificate's DER encoding. */
export function certificateThumbprint(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.raw).digest('base64url');
}

function fromConnection(request: FastifyRequest): X509Certificate | undefined {
  const socket = request.raw.socket as Partial<TLSSocket> | undefined;
  if (!socket?.encrypted || typeof socket.getPeerCertificate !== 'function') return undefined;
  const raw = socket.getPeerCertificate(false)?.raw;
  if (!raw || raw.length === 0) return undefined;
  try {
    return new X509Certificate(raw);
  } catch {
    return undefined;
  }
}

const BEGIN = '-----BEGIN CERTIFICATE-----';
const END = '-----END CERTIFICATE-----';
/** Base64 and whitespace only: one character class, so that the match takes linear time whatever the input. */
const PEM_BODY = /^[A-Za-z0-9+/=\s]+$/;

function fromHeader(value: string | string[] | undefined): X509Certificate | undefined {
  // A repeated header is not one certificate.
  if (typeof value !== 'string' || value === '' || value.length > 64 * 1024) return undefined;
  let pem: string;
  try {
    pem = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  pem = pem.trim();
  // Exactly one certificate (a bundle would make the "client certificate" ambiguous): its body
  // holds no dash, so no second BEGIN line.
  if (pem.length <= BEGIN.length + END.length || !pem.startsWith(BEGIN) || !pem.endsWith(END)) return undefined;
  if (!PEM_BODY.test(pem.slice(BEGIN.length, -END.length))) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}
