import { z } from 'zod';
import type { consentView } from '../user-consents.js';
import type { passkeyView } from '../user-credentials.js';
import { WebhookPathSchema, WebhookPutSchema, type webhookView } from '../webhooks.js';

/** What the operator actions on a person and the webhooks answer (CONTRACT.md §16): strict, as ./responses.ts's are. */

const instant = z.iso.datetime().describe('An ISO 8601 instant in UTC');

export const UserPasskeyResponse = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/).describe('The credential id, base64url: the `{id}` that deletes it'),
  name: z.string().describe('The name the person gave it'),
  created_at: instant,
  last_used_at: instant.nullable().describe('Its last sign-in; null when never used'),
  backed_up: z.boolean().describe('Synced to the person\'s other devices (the authenticator\'s BS flag at its last use)'),
});

export const UserPasskeysResponse = z.strictObject({
  passkeys: z.array(UserPasskeyResponse).describe('The person\'s passkeys; their public keys are never shown'),
});

export const UserConsentResponse = z.strictObject({
  client_id: z.string(),
  client_name: z.string().nullable().describe('The client\'s `client_name`; null without one'),
  scope: z.string().describe('The scopes the person allowed the client, separated by spaces'),
  granted_at: instant.describe('The person\'s last consent to the client'),
});

export const UserConsentsResponse = z.strictObject({
  consents: z.array(UserConsentResponse).describe('The clients the person allowed, the most recent first'),
});

// As ./responses.ts holds its views: the same fields in the view and the schema, or the type check fails.
type Documents<View, Schema extends z.ZodType> = [keyof View] extends [keyof z.output<Schema>]
  ? [keyof z.output<Schema>] extends [keyof View]
    ? true
    : false
  : false;
const viewsDocumented: [
  Documents<ReturnType<typeof passkeyView>, typeof UserPasskeyResponse>,
  Documents<ReturnType<typeof consentView>, typeof UserConsentResponse>,
] = [true, true];
void viewsDocumented;

export const WebhookResponse = z.strictObject({
  name: WebhookPathSchema.shape.webhook,
  url: z.string().describe('Where the events are POSTed'),
  events: WebhookPutSchema.shape.events,
  created_at: instant,
  updated_at: instant,
});

export const WebhookListResponse = z.strictObject({ webhooks: z.array(WebhookResponse) });

const webhookViewDocumented: Documents<ReturnType<typeof webhookView>, typeof WebhookResponse> = true;
void webhookViewDocumented;
