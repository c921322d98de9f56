import { X509Certificate } from 'node:crypto';
import { subjectMatches } from './distinguished-name.js';
import type { ClientAuthMethod } from './method.js';

/**
 * RFC 8705 §2.1 `tls_client_auth`: the client presented (over TLS, or through the trusted load
 * balancer's header) a certificate that a CA of `TLS_CA` issued, valid now, whose subject is
 * the client's `tls_client_auth_subject_dn` (compared canonically: distinguished-name.ts).
 *
 * The chain is kept simple: the client certificate must be issued directly by one of the CA
 * certificates of the `TLS_CA` bundle (its issuer name, its signature, the CA's basic
 * constraints, both validity periods). A client whose certificate comes from an intermediate
 * CA is served by putting that intermediate in the bundle; intermediates sent by the client
 * are not used. Without `TLS_CA` the method fails closed: no certificate is trusted.
 */
export function tlsClientAuth(trustedCas: readonly X509Certificate[]): ClientAuthMethod {
  return {
    name: 'tls_client_auth',
    verify(client, presented, { certificate }) {
      if (presented.form !== 'client_id_only' || !certificate || !client.tls_client_auth_subject_dn) return false;
      const now = Date.now();
      if (!isValidAt(certificate, now)) return false;
      const issuedByTrustedCa = trustedCas.some(
        (ca) => isValidAt(ca, now) && certificate.checkIssued(ca) && verifiesWith(certificate, ca),
      );
      return issuedByTrustedCa && subjectMatches(certificate, client.tls_client_auth_subject_dn);
    },
  };
}

/** The CA certificates of a PEM bundle (`TLS_CA`); those that are not CAs are left out. */
export function readCaBundle(pem: string | Buffer | undefined): X509Certificate[] {
  if (pem === undefined) return [];
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block)).filter((certificate) => certificate.ca);
}

function isValidAt(certificate: X509Certificate, now: number): boolean {
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  return Number.isFinite(from) && Number.isFinite(to) && from <= now && now <= to;
}

function verifiesWith(certificate: X509Certificate, ca: X509Certificate): boolean {
  try {
    return certificate.verify(ca.publicKey);
  } catch {
    return false;
  }
}
