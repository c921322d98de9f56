import { DELETED, type Operation } from '../operation.js';

/** A realm's webhooks (CONTRACT.md §16). */
export const webhookOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/webhooks', operationId: 'listWebhooks', tag: 'Webhooks', summary: 'List the realm\'s webhooks',
    responses: { 200: { description: 'The webhooks, by name; their secrets are never shown', schema: 'WebhookList' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/webhooks/:webhook', operationId: 'putWebhook', tag: 'Webhooks', summary: 'Create or replace a webhook',
    description: 'Each audit event of the realm whose type is in `events` is POSTed to `url` as JSON (the event as the events API shows it), with the header ' +
      '`Realmgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>`. Deliveries are durable: queued with the event, ' +
      'retried with backoff for an hour after an answer other than 2xx or a timeout (5 s), by any instance, never sent again after a 2xx. ' +
      'A URL the outbound guard refuses (a loopback, private or link-local address not in `OUTBOUND_ALLOW`) or whose host does not resolve is 400. ' +
      'The secret is stored encrypted and never answered.',
    body: { schema: 'WebhookPut', example: { url: 'https://hooks.example.com/realmgate', events: ['sign_in.succeeded', 'sign_in.failed'], secret: 'a long random secret of the receiver' } },
    responses: {
      201: { description: 'Created', schema: 'Webhook', headers: { 'Cache-Control': 'no-store' } },
      200: { description: 'Replaced', schema: 'Webhook', headers: { 'Cache-Control': 'no-store' } },
    },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/webhooks/:webhook', operationId: 'getWebhook', tag: 'Webhooks', summary: 'Read a webhook',
    responses: { 200: { description: 'The webhook, without its secret', schema: 'Webhook' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/webhooks/:webhook', operationId: 'deleteWebhook', tag: 'Webhooks', summary: 'Delete a webhook',
    description: 'Deliveries still owed to it are dropped with it.',
    responses: DELETED,
  },
];
