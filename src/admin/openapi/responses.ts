import { z } from 'zod';
import { TrustedIssuerSchema } from '../../records/trusted-issuer.js';
import { AUDIT_EVENT_TYPES } from '../../audit/audit-log.js';
import { ClientCreateSchema, ClientMetadataPatchSchema } from '../../records/client.js';
import { RealmSettingsPatchSchema } from '../../records/realm-settings.js';
import type { Group } from '../../store/groups.js';
import type { Role } from '../../store/roles.js';
import type { clientView } from '../clients.js';
import type { eventView } from '../events.js';
import { RealmCreateSchema, type realmView } from '../realms.js';
import { GroupPathSchema, GroupPutSchema } from '../groups.js';
import { ResourcePutSchema, type resourceView } from '../resources.js';
import { RolePathSchema, RolePutSchema } from '../roles.js';
import { ScopePathSchema, ScopePutSchema, type scopeView } from '../scopes.js';
import type { identityProviderView } from '../identity-providers.js';
import { IdentityProviderCreateSchema } from '../../records/identity-provider.js';
import type { trustedIssuerView } from '../trusted-issuers.js';
import type { sessionView } from '../user-sessions.js';
import { UserCreateSchema, type userView } from '../users.js';

/**
 * What the admin API answers, as zod schemas: the document shows them, and the tests hold the
 * real answers to them. Objects are strict, so that a field an answer gains (or leaks) is seen.
 */

const instant = z.iso.datetime().describe('An ISO 8601 instant in UTC');
const epochSeconds = z.number().int().nonnegative().describe('Seconds since 1970-01-01T00:00:00Z');

export const RealmResponse = z.strictObject({
  name: RealmCreateSchema.shape.name,
  issuer: z.url().describe('`{BASE_URL}/oauth2` for root, `{BASE_URL}/oauth2/{realm}` for the others'),
  settings: RealmSettingsPatchSchema.required().describe('Every setting, the defaults filling what was never set'),
  created_at: instant,
});

const clientMetadata = ClientMetadataPatchSchema.shape;
export const ClientResponse = ClientMetadataPatchSchema.required().extend({
  jwks: clientMetadata.jwks.unwrap(),
  logo_uri: clientMetadata.logo_uri.unwrap(),
  client_names: clientMetadata.client_names.unwrap().optional(),
  jwks_uri: clientMetadata.jwks_uri.unwrap(),
  tls_client_auth_subject_dn: clientMetadata.tls_client_auth_subject_dn.unwrap(),
  journey: clientMetadata.journey.unwrap().describe('The journey its sign-ins walk; none: the realm\'s choice (CONTRACT.md §8)'),
  backchannel_logout_uri: clientMetadata.backchannel_logout_uri.unwrap().optional(),
  backchannel_logout_session_required: clientMetadata.backchannel_logout_session_required.optional(),
  frontchannel_logout_uri: clientMetadata.frontchannel_logout_uri.unwrap().optional(),
  frontchannel_logout_session_required: clientMetadata.frontchannel_logout_session_required.optional(),
  backchannel_token_delivery_mode: clientMetadata.backchannel_token_delivery_mode.optional(),
  backchannel_client_notification_endpoint: clientMetadata.backchannel_client_notification_endpoint.unwrap().optional(),
  roles: clientMetadata.roles.unwrap().optional().describe('The `root` roles of its client credentials tokens (CONTRACT.md §14); none unless given'),
  id_jag_audiences: clientMetadata.id_jag_audiences.unwrap().optional().describe('Authorization servers of other trust domains it may obtain ID-JAGs for (CONTRACT.md §15); none unless given'),
  transaction_token_service: clientMetadata.transaction_token_service
    .unwrap()
    .optional()
    .describe('It may ask for transaction tokens, presenting any live access token of the realm (CONTRACT.md §15); absent: no'),
  subject_type: clientMetadata.subject_type.unwrap().optional().describe('`pairwise`: a `sub` of its sector alone (OpenID Connect Core §8, CONTRACT.md §13); absent: public'),
  sector_identifier_uri: clientMetadata.sector_identifier_uri.unwrap().optional(),
  authorization_details_types: clientMetadata.authorization_details_types.unwrap().optional(),
  client_id: ClientCreateSchema.shape.client_id.unwrap(),
  client_id_issued_at: epochSeconds,
});

export const ClientWithSecretResponse = ClientResponse.extend({
  client_secret: z
    .string()
    .optional()
    .describe('Present only when a secret was generated (a new confidential client, or one that now authenticates with a secret): shown this once'),
  client_secret_expires_at: z.literal(0).optional().describe('0: the secret does not expire (RFC 7591 §3.2.1); present with client_secret'),
});

export const ClientSecretResponse = z.strictObject({
  client_id: ClientCreateSchema.shape.client_id.unwrap(),
  client_secret: z.string().describe('The new secret, shown this once; the previous one stops working'),
});

export const UserResponse = z.strictObject({
  username: UserCreateSchema.shape.username,
  sub: z.string().describe('The stable subject identifier of ID tokens and access tokens'),
  claims: UserCreateSchema.shape.claims.unwrap(),
  created_at: instant,
  updated_at: instant,
  enabled: z.boolean().describe('false once an admin disabled the person: they sign in nowhere (CONTRACT.md §10)'),
  identities: z
    .array(z.strictObject({ provider: z.string().describe('The identity provider\'s alias'), subject: z.string().describe('The person\'s `sub` at the provider') }))
    .optional()
    .describe('The upstream accounts the person signs in with (CONTRACT.md §10); in the answers about one person'),
  roles: z.array(z.string()).optional().describe('The roles given to the person themselves, by name; in the answers about one person'),
  groups: z.array(z.string()).optional().describe('The person\'s groups, by name; in the answers about one person'),
  effective_roles: z
    .array(z.string())
    .optional()
    .describe('What tokens carry as the person\'s roles: their own and their groups\', each once, by name; in the answers about one person'),
});

export const UserPageResponse = z.strictObject({
  users: z.array(UserResponse).describe('In the order of their usernames, ignoring case'),
  next: z.string().nullable().describe('Pass it as `cursor` for the next page; null on the last page'),
});

export const UserSessionResponse = z.strictObject({
  id: z.string().describe('The session\'s public id: the `sid` of its ID tokens (never its cookie\'s secret)'),
  created_at: instant.describe('When the person signed in'),
  last_seen_at: instant.describe('The sign-in, or the last token issued under the session, whichever is later'),
  expires_at: instant,
  journey: z.string().describe('The journey the sign-in walked (CONTRACT.md §8)'),
  acr: z.string(),
  amr: z.array(z.string()).describe('RFC 8176 methods of the sign-in'),
  nodes: z
    .array(z.string())
    .describe('The nodes of the person\'s it passed (`password`, `otp`, `passkey`, `identity_provider:<alias>`, `email_verification`, `register`): a later request asks only for the others its journey needs (CONTRACT.md §8)'),
  clients: z.array(z.string()).describe('The clients given codes or tokens under the session'),
});

export const UserSessionsResponse = z.strictObject({
  sessions: z.array(UserSessionResponse).describe('The live sessions, the most recent sign-in first'),
});

export const TotpEnrolmentResponse = z.strictObject({
  secret: z.string().regex(/^[A-Z2-7]+$/).describe('The TOTP secret in base32, shown this once'),
  otpauth_uri: z.string().regex(/^otpauth:\/\/totp\//).describe('The same secret as an otpauth:// URI, for a QR code'),
});

export const ScopeResponse = z.strictObject({
  name: ScopePathSchema.shape.name,
  description: ScopePutSchema.shape.description,
  descriptions: ScopePutSchema.shape.descriptions.describe('The description per language; present when it has some'),
  claims: ScopePutSchema.shape.claims.describe('The claims the scope maps (CONTRACT.md §10); present when it maps some'),
});

export const RoleResponse = z.strictObject({
  name: RolePathSchema.shape.role,
  description: RolePutSchema.shape.description.unwrap().describe('What the role allows'),
});

export const ResourceResponse = z.strictObject({
  identifier: ResourcePutSchema.shape.identifier,
  name: ResourcePutSchema.shape.name.unwrap().unwrap().describe('What the consent page calls it; absent: none'),
  descriptions: ResourcePutSchema.shape.descriptions.unwrap().unwrap().optional().describe('What the consent page calls it per language; absent: none'),
  scopes: ResourcePutSchema.shape.scopes.unwrap().unwrap().describe('The scopes a token for it may carry; absent: any'),
});

/** `GET …/resources`: the list, or with `identifier` the one resource. */
export const ResourceLookupResponse = z.union([z.array(ResourceResponse), ResourceResponse]);

export const GroupResponse = z.strictObject({
  name: GroupPathSchema.shape.group,
  description: GroupPutSchema.shape.description.unwrap().describe('Who the group is'),
  roles: GroupPutSchema.shape.roles.unwrap().describe('The roles its members hold, by name'),
});

const signingAlg = z.enum(['RS256', 'ES256']);
export const SigningKeysResponse = z.strictObject({
  keys: z.array(
    z.strictObject({
      kid: z.string(),
      alg: signingAlg,
      current: z.boolean().describe('Whether the key signs new tokens; a retired key only verifies'),
      retired_at: instant.optional().describe('When a retired key was replaced'),
    }),
  ),
});

export const RotatedKeysResponse = z.strictObject({
  keys: z.array(z.strictObject({ kid: z.string(), alg: signingAlg })).describe('The new current keys, one per algorithm'),
});

export const RealmPermissionsResponse = z.strictObject({
  realm: z.string(),
  operations: z
    .record(
      z.string(),
      z.union([
        z.strictObject({ allowed: z.literal(true) }),
        z.strictObject({ allowed: z.literal(false), reason: z.string().describe('What a call would be refused with (403 `forbidden`)') }),
      ]),
    )
    .describe('Every operation of this document, by operationId'),
});

export const InitialAccessTokenResponse = z.strictObject({
  token: z.string().describe('The bearer token for one registration at `{issuer}/connect/register`, shown this once'),
  expires_in: z.number().int().positive().describe('Seconds the token stays usable'),
});

export const TrustedIssuerResponse = TrustedIssuerSchema.extend({
  id: z.uuid(),
  created_at: epochSeconds,
});

const providerFields = IdentityProviderCreateSchema.shape;
export const IdentityProviderResponse = z.strictObject({
  alias: providerFields.alias,
  kind: providerFields.kind,
  issuer: providerFields.issuer,
  client_id: providerFields.client_id,
  scope: providerFields.scope.unwrap(),
  display_name: providerFields.display_name,
  username_claim: providerFields.username_claim.unwrap(),
  link_by_verified_email: providerFields.link_by_verified_email.unwrap(),
  redirect_uri: z.url().describe('The callback to register at the provider: `{issuer}/broker/{alias}/callback`'),
  created_at: instant,
  updated_at: instant,
});

export const AuditEventResponse = z.strictObject({
  id: z.string(),
  occurred_at: instant,
  realm: z.string(),
  type: z.enum(AUDIT_EVENT_TYPES),
  client_id: z.string().nullable(),
  user_id: z.string().nullable().describe('The `sub` of the person concerned'),
  address: z.string().nullable().describe('The address the request came from'),
  details: z.record(z.string(), z.unknown()).describe('What the event adds, by type; never a secret'),
  actor: z
    .union([z.strictObject({ admin_token: z.literal(true) }), z.strictObject({ sub: z.string(), client_id: z.string() })])
    .optional()
    .describe('Who made an admin change: `ADMIN_TOKEN`, or the subject and client of a `root` access token (CONTRACT.md §14)'),
});

export const AuditEventPageResponse = z.strictObject({
  events: z.array(AuditEventResponse).describe('Newest first'),
  next: z.string().nullable().describe('Pass it as `before` for the next page; null on the last page'),
});

export const ErrorResponse = z.strictObject({
  error: z.string().describe('invalid_request, invalid_token, not_found or conflict'),
  error_description: z.string().describe('What is wrong, for the person reading it'),
});

// Each view function of the routes answers the fields its schema documents, no more and no
// fewer: a field added to a view and not here (or the other way round) fails the type check.
// The values are held to the schemas by the tests, on real answers.
type Documents<View, Schema extends z.ZodType> = [keyof View] extends [keyof z.output<Schema>]
  ? [keyof z.output<Schema>] extends [keyof View]
    ? true
    : false
  : false;
const viewsDocumented: [
  Documents<ReturnType<typeof realmView>, typeof RealmResponse>,
  Documents<ReturnType<typeof clientView>, typeof ClientResponse>,
  Documents<ReturnType<typeof userView>, typeof UserResponse>,
  Documents<ReturnType<typeof scopeView>, typeof ScopeResponse>,
  Documents<ReturnType<typeof trustedIssuerView>, typeof TrustedIssuerResponse>,
  Documents<ReturnType<typeof eventView>, typeof AuditEventResponse>,
  Documents<ReturnType<typeof identityProviderView>, typeof IdentityProviderResponse>,
  Documents<Role, typeof RoleResponse>,
  Documents<Group, typeof GroupResponse>,
  Documents<ReturnType<typeof resourceView>, typeof ResourceResponse>,
  Documents<ReturnType<typeof sessionView>, typeof UserSessionResponse>,
] = [true, true, true, true, true, true, true, true, true, true, true];
void viewsDocumented;
