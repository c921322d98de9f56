import { z } from 'zod';
import { ClientCreateSchema } from '../../records/client.js';
import { GroupPathSchema } from '../groups.js';
import { IdentityProviderPathSchema } from '../identity-providers.js';
import { JourneyPathSchema } from '../journeys.js';
import { RealmCreateSchema } from '../realms.js';
import { RolePathSchema } from '../roles.js';
import { ScopePathSchema } from '../scopes.js';
import { UserCreateSchema } from '../users.js';
import type { Operation, PathParameter, Response } from './operation.js';
import { clientOperations } from './operations/clients.js';
import { eventOperations } from './operations/events.js';
import { groupOperations } from './operations/groups.js';
import { identityProviderOperations } from './operations/identity-providers.js';
import { journeyOperations } from './operations/journeys.js';
import { permissionOperations } from './operations/permissions.js';
import { realmDataOperations } from './operations/realm-data.js';
import { realmOperations } from './operations/realms.js';
import { initialAccessTokenOperations } from './operations/initial-access-tokens.js';
import { resourceOperations } from './operations/resources.js';
import { roleOperations } from './operations/roles.js';
import { scopeOperations } from './operations/scopes.js';
import { signingKeyOperations } from './operations/signing-keys.js';
import { trustedIssuerOperations } from './operations/trusted-issuers.js';
import { userOperations } from './operations/users.js';
import { userActionOperations } from './operations/user-actions.js';
import { webhookOperations } from './operations/webhooks.js';
import { WebhookPathSchema } from '../webhooks.js';
import { textOperations } from './operations/texts.js';
import { TextsPathSchema } from '../texts.js';
import { NAMED_SCHEMAS } from './schemas.js';

/**
 * The admin API's operations, resource by resource (./operations/), with the path
 * parameters and tags they share. A route added to the router and not here fails
 * test/admin/openapi.test.ts.
 */

/** Every path parameter of the admin routes, by its name in the route (`:realm`). */
export const PATH_PARAMETERS: Readonly<Record<string, PathParameter>> = {
  realm: {
    schema: RealmCreateSchema.shape.name,
    description: 'The realm\'s name: 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit. `root` always exists.',
    example: 'acme',
  },
  client_id: { schema: ClientCreateSchema.shape.client_id.unwrap(), description: 'The client\'s `client_id`', example: 'billing' },
  username: { schema: UserCreateSchema.shape.username, description: 'The person\'s username', example: 'alice' },
  name: { schema: ScopePathSchema.shape.name, description: 'The scope\'s name, a scope-token of RFC 6749 §3.3 (percent-encoded in the path)', example: 'orders:read' },
  journey: { schema: JourneyPathSchema.shape.journey, description: 'The journey\'s name: 1 to 64 letters, digits, `.`, `_` or `-`. `default` always exists.', example: 'strong' },
  alias: { schema: IdentityProviderPathSchema.shape.alias, description: 'The identity provider\'s alias: 1 to 63 characters of a-z, 0-9, `_` and `-`', example: 'corp' },
  role: { schema: RolePathSchema.shape.role, description: 'The role\'s name: 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit', example: 'invoice-approver' },
  group: { schema: GroupPathSchema.shape.group, description: 'The group\'s name: 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit', example: 'accounting' },
  id: { schema: z.uuid(), description: 'The trusted issuer\'s `id`, as its creation answered', example: '3f1c2b9e-8d4a-4e0f-9b71-2a6c5d8e7f10' },
  webhook: { schema: WebhookPathSchema.shape.webhook, description: 'The webhook\'s name: 1 to 64 letters, digits, `.`, `_` or `-`', example: 'siem' },
  locale: { schema: TextsPathSchema.shape.locale, description: 'A language the pages and mails ship in, as a BCP 47 primary tag', example: 'de' },
  passkey: { schema: z.string().regex(/^[A-Za-z0-9_-]{1,1364}$/), description: 'The passkey\'s credential id, base64url, as the list answers it', example: 'AQIDBAUGBwg' },
};

export const TAGS = [
  { name: 'Realms', description: 'Realms and their settings. Deleting a realm deletes everything in it.' },
  { name: 'Clients', description: 'The applications of a realm, with RFC 7591 metadata names.' },
  { name: 'Users', description: 'The people of a realm; passwords are stored as argon2id hashes only.' },
  { name: 'Scopes', description: 'What clients may request, with the text the consent page shows. `openid`, `profile` and `email` exist in every realm.' },
  { name: 'Signing keys', description: 'The keys that sign the realm\'s tokens: an RS256 and an ES256 key.' },
  { name: 'Registration', description: 'Initial access tokens for dynamic client registration (RFC 7591).' },
  { name: 'Trusted issuers', description: 'Identity systems whose JWTs or SAML 2.0 assertions the realm accepts (RFC 7523, RFC 7522, RFC 8693).' },
  { name: 'Journeys', description: 'The journeys people walk to sign in (CONTRACT.md §8): graphs of nodes. `default` is the realm\'s `authentication` setting until a journey of that name is stored.' },
  { name: 'Identity providers', description: 'Upstream OpenID providers the realm\'s people sign in through (CONTRACT.md §10).' },
  { name: 'Roles and groups', description: 'Roles, groups that give roles, and the roles and groups of people (CONTRACT.md §10). A person\'s roles are their own and their groups\'; scopes map them into tokens.' },
  { name: 'Resources', description: 'The APIs of a realm (RFC 8707, CONTRACT.md §10): any of its clients may ask tokens for them with `resource`; a token\'s `aud` names them.' },
  { name: 'Audit events', description: 'What happened in the realm: tokens, sign-ins, consents and admin changes.' },
  { name: 'Webhooks', description: 'Receivers of the realm\'s audit events: each matching event is POSTed, signed with HMAC-SHA256, through a durable outbox.' },
  { name: 'Texts', description: 'The realm\'s own words for its pages and mails, per language, in place of the shipped ones.' },
] as const;

export const OPERATIONS: readonly Operation[] = [
  ...realmOperations,
  ...realmDataOperations,
  ...clientOperations,
  ...userOperations,
  ...scopeOperations,
  ...signingKeyOperations,
  ...initialAccessTokenOperations,
  ...trustedIssuerOperations,
  ...journeyOperations,
  ...identityProviderOperations,
  ...roleOperations,
  ...groupOperations,
  ...resourceOperations,
  ...eventOperations,
  ...permissionOperations,
  ...userActionOperations,
  ...webhookOperations,
  ...textOperations,
];

/** `/admin/realms/:realm` as OpenAPI writes it: `/admin/realms/{realm}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

export const pathParameterNames = (path: string): string[] => [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]!);

/** The zod schema of a success answer: what the tests hold real answers to. */
export function responseSchemaOf(response: Response): z.ZodType | undefined {
  if (response.schema === undefined) return undefined;
  const schema: z.ZodType = NAMED_SCHEMAS[response.schema].schema;
  return response.list ? z.array(schema) : schema;
}
