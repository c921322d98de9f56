import { createHmac } from 'node:crypto';
import { eventView } from '../admin/events.js';
import type { AuditEventStore } from '../store/audit-events.js';
import type { OutboxEntry } from '../store/outbox.js';
import type { WebhookStore } from '../store/webhooks.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { OutboxSender } from './deliverer.js';

/** The outbox kind of a webhook delivery, as migrations/042_webhooks.sql queues it. */
export const WEBHOOK = 'webhook';

/** The header that carries a delivery's signature (CONTRACT.md §16). */
export const SIGNATURE_HEADER = 'realmgate-signature';

/** The sealed secret is bound to its realm and webhook: copied to another row, it does not open. */
const contextOf = (realm: string, name: string) => `webhook ${realm} ${name}`;

export function sealWebhookSecret(encryption: KeyEncryption, realm: string, name: string, secret: string): Buffer {
  return encryption.encrypt(Buffer.from(secret, 'utf8'), contextOf(realm, name));
}

function openWebhookSecret(encryption: KeyEncryption, realm: string, name: string, sealed: Buffer): string | undefined {
  try {
    return encryption.decrypt(sealed, contextOf(realm, name)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver recomputes it and checks `t` is recent. */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Sends a queued webhook delivery: the audit event as the events API shows it, as JSON, signed
 * at each try with the webhook's current secret and the time of the try (a retry an hour later
 * is not refused as stale). The outbox holds only the webhook's name and the event's id. A
 * webhook deleted meanwhile, an event expired, or a secret that does not open (another master
 * key) can no longer be sent: given up, not retried.
 */
export function webhookSender(deps: { webhooks: Pick<WebhookStore, 'get'>; auditEvents: Pick<AuditEventStore, 'byId'>; encryption: KeyEncryption; clock?: () => number }): OutboxSender {
  const clock = deps.clock ?? Date.now;
  return {
    async request(entry: OutboxEntry) {
      const { webhook: name, event: eventId } = entry.payload;
      if (typeof name !== 'string' || typeof eventId !== 'string') return undefined;
      const [webhook, event] = await Promise.all([deps.webhooks.get(entry.realm, name), deps.auditEvents.byId(entry.realm, eventId)]);
      if (!webhook || !event) return undefined;
      const secret = openWebhookSecret(deps.encryption, webhook.realm, webhook.name, webhook.secretSealed);
      if (secret === undefined) return undefined;
      const body = JSON.stringify(eventView(event));
      return {
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: webhookSignature(secret, Math.floor(clock() / 1000), body) },
        body,
      };
    },
  };
}
