import type { PendingAuthorizationStore } from '../store/pending-authorizations.js';
import type { OutboxEntry } from '../store/outbox.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { OutboxSender } from './deliverer.js';

/** What a ping carries (CIBA Core §10.2): secrets both, kept sealed until it is sent. */
export interface PingSecrets {
  auth_req_id: string;
  client_notification_token: string;
}

/** The sealed form is bound to the request: copied to another row or realm, it does not open. */
const contextOf = (realm: string, requestId: string) => `ciba ping ${realm} ${requestId}`;

export function sealPing(encryption: KeyEncryption, realm: string, requestId: string, secrets: PingSecrets): Buffer {
  return encryption.encrypt(Buffer.from(JSON.stringify(secrets)), contextOf(realm, requestId));
}

/**
 * Sends a queued CIBA ping (CIBA Core §10.2): a JSON POST of `{"auth_req_id": …}` with the
 * request's `client_notification_token` as Bearer token, which the client then redeems at the
 * token endpoint. The outbox holds only the request's public id; both secrets are unsealed from
 * the request (migrations/037_ciba_ping.sql) at each try. A request deleted meanwhile (a day
 * past its expiry, or with its client), or whose sealed value does not open (another master
 * key, or a value copied from another request), can no longer be told: given up, not retried.
 */
export function cibaPingSender(pending: Pick<PendingAuthorizationStore, 'sealedNotification'>, encryption: KeyEncryption): OutboxSender {
  return {
    async request(entry: OutboxEntry) {
      const requestId = entry.payload.request;
      if (typeof requestId !== 'string') return undefined;
      const sealed = await pending.sealedNotification(entry.realm, requestId);
      if (!sealed) return undefined;
      const secrets = unsealPing(encryption, entry.realm, requestId, sealed);
      if (!secrets) return undefined;
      return {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets.client_notification_token}` },
        body: JSON.stringify({ auth_req_id: secrets.auth_req_id }),
      };
    },
  };
}

/** The secrets of a request's notification; none when they do not open (another master key, or copied from another request). */
export function unsealPing(encryption: KeyEncryption, realm: string, requestId: string, sealed: Buffer): PingSecrets | undefined {
  try {
    return JSON.parse(encryption.decrypt(sealed, contextOf(realm, requestId)).toString('utf8')) as PingSecrets;
  } catch {
    return undefined;
  }
}
