import { X509Certificate } from 'node:crypto';
import { type JWK, calculateJwkThumbprint, exportJWK } from 'jose';
import type { Client } from '../store/clients.js';
import { subjectMatches } from './distinguished-name.js';
import type { ClientAuthMethod } from './methods.js';

/**
 * The keys of a client registered by `jwks_uri`; undefined when they cannot be had. `refresh`
 * asks for a refetch (rate limited by the fetcher), after the presented key was not among them.
 */
export type ClientKeysOf = (client: Client, refresh: boolean) => Promise<readonly JWK[] | undefined>;

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

/**
 * RFC 8705 §2.2 `self_signed_tls_client_auth`: the public key of the presented certificate is
 * one of the client's registered keys (`jwks`, or `jwks_uri` through `keysOf`, refetched once
 * when the key is not there, as the client may have just added it), compared by RFC 7638
 * thumbprint. The TLS handshake proved the client holds the private key; the
 * certificate is not checked against any CA, nor its validity period (RFC 8705 §2.2: the
 * registration, not a PKI, is what is trusted).
 */
export function selfSignedTlsClientAuth(keysOf?: ClientKeysOf): ClientAuthMethod {
  return {
    name: 'self_signed_tls_client_auth',
    async verify(client, presented, { certificate }) {
      if (presented.form !== 'client_id_only' || !certificate) return false;
      const presentedKey = await thumbprintOf(await exportJWK(certificate.publicKey).catch(() => undefined));
      if (!presentedKey) return false;
      if (client.jwks) return holdsKey(client.jwks.keys as JWK[], presentedKey);
      if (!client.jwks_uri || !keysOf) return false;
      return (await holdsKey(await keysOf(client, false), presentedKey)) || holdsKey(await keysOf(client, true), presentedKey);
    },
  };
}

/** The CA certificates of a PEM bundle (`TLS_CA`); those that are not CAs are left out. */
export function readCaBundle(pem: string | Buffer | undefined): X509Certificate[] {
  if (pem === undefined) return [];
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block)).filter((certificate) => certificate.ca);
}

async function holdsKey(keys: readonly JWK[] | undefined, thumbprint: string): Promise<boolean> {
  for (const key of keys ?? []) {
    if ((await thumbprintOf(key)) === thumbprint) return true;
  }
  return false;
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

async function thumbprintOf(key: JWK | undefined): Promise<string | undefined> {
  if (!key) return undefined;
  try {
    return await calculateJwkThumbprint(key, 'sha256');
  } catch {
    return undefined;
  }
}
