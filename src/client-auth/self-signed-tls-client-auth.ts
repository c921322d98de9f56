import { type JWK, calculateJwkThumbprint, exportJWK } from 'jose';
import type { Client } from '../store/clients.js';
import type { ClientAuthMethod } from './method.js';

/**
 * The keys of a client registered by `jwks_uri`; undefined when they cannot be had. `refresh`
 * asks for a refetch (rate limited by the fetcher), after the presented key was not among them.
 */
export type ClientKeysOf = (client: Client, refresh: boolean) => Promise<readonly JWK[] | undefined>;

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

async function holdsKey(keys: readonly JWK[] | undefined, thumbprint: string): Promise<boolean> {
  for (const key of keys ?? []) {
    if ((await thumbprintOf(key)) === thumbprint) return true;
  }
  return false;
}

async function thumbprintOf(key: JWK | undefined): Promise<string | undefined> {
  if (!key) return undefined;
  try {
    return await calculateJwkThumbprint(key, 'sha256');
  } catch {
    return undefined;
  }
}
