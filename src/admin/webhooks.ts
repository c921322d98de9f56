import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AUDIT_EVENT_TYPES } from '../audit/audit-log.js';
import { OAuthError } from '../errors.js';
import { sealWebhookSecret } from '../outbox/webhook.js';
import { callbackUri } from '../records/client-uris.js';
import type { Webhook } from '../store/webhooks.js';
import type { AdminDeps } from './deps.js';
import { notFound, parseInput } from './validate.js';

type RealmParams = { Params: { realm: string } };
type Params = { Params: { realm: string; webhook: string } };

export const WebhookPathSchema = z.strictObject({
  webhook: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit'),
});

export const WebhookPutSchema = z.strictObject({
  url: callbackUri.describe('Where each event is POSTed: https, or http on a loopback host; it must pass the outbound guard (no internal address unless `OUTBOUND_ALLOW` lists it)'),
  events: z
    .array(z.enum(AUDIT_EVENT_TYPES))
    .min(1, 'must name at least one event type')
    .refine((events) => new Set(events).size === events.length, 'must not repeat')
    .describe('The audit event types to send, as the events API names them'),
  secret: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512, 'must be at most 512 characters')
    .describe('Signs each delivery (HMAC-SHA256); stored encrypted and never answered'),
});

/** A webhook as the admin API shows it: never its secret. */
export function webhookView(webhook: Webhook) {
  return {
    name: webhook.name,
    url: webhook.url,
    events: [...webhook.events],
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

/**
 * `/admin/realms/{realm}/webhooks/{name}` (CONTRACT.md §16): receivers of the realm's audit
 * events. The URL is judged by the outbound guard as it is saved (a clear refusal now; the
 * connection is judged again at each delivery). Each matching event is queued in the outbox by
 * the statement that writes it (migrations/042_webhooks.sql) and sent by src/outbox/webhook.ts.
 */
export function webhookRoutes({ store, encryption, outbound }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<RealmParams>('/webhooks', async (request) => ({ webhooks: (await store.webhooks.list(request.realm.name)).map(webhookView) }));

    app.get<Params>('/webhooks/:webhook', async (request) => {
      const webhook = await store.webhooks.get(request.realm.name, request.params.webhook);
      if (!webhook) throw notFound('webhook');
      return webhookView(webhook);
    });

    app.put<Params>('/webhooks/:webhook', async (request, reply) => {
      const { webhook: name } = parseInput(WebhookPathSchema, { webhook: request.params.webhook });
      const input = parseInput(WebhookPutSchema, request.body);
      const verdict = await outbound.admits(new URL(input.url)).catch(() => 'unresolved' as const);
      if (verdict === 'refused') throw new OAuthError('invalid_request', 'url: must not point at a loopback, private, link-local or otherwise internal address (OUTBOUND_ALLOW lists exceptions)');
      if (verdict === 'unresolved') throw new OAuthError('invalid_request', 'url: the host name does not resolve');
      const realm = request.realm.name;
      const { webhook, created } = await store.webhooks.put({
        realm, name, url: input.url, events: input.events, secretSealed: sealWebhookSecret(encryption, realm, name, input.secret),
      });
      return reply.code(created ? 201 : 200).header('cache-control', 'no-store').send(webhookView(webhook));
    });

    app.delete<Params>('/webhooks/:webhook', async (request, reply) => {
      if (!(await store.webhooks.delete(request.realm.name, request.params.webhook))) throw notFound('webhook');
      return reply.code(204).send();
    });
  };
}
