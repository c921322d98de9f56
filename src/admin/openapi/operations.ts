import { z } from 'zod';
import { AUDIT_EVENT_TYPES } from '../../audit/audit-log.js';
import { ClientCreateSchema, ClientMetadataPatchSchema } from '../../clients/record.js';
import { TrustedIssuerCreateSchema, TrustedIssuerPatchSchema } from '../../trusted-issuers/record.js';
import { EventQuerySchema, MAX_EVENT_LIMIT, DEFAULT_EVENT_LIMIT } from '../events.js';
import { InitialAccessTokenRequest } from '../initial-access-tokens.js';
import { RealmCreateSchema, RealmPatchSchema } from '../realms.js';
import { ScopePathSchema, ScopePutSchema } from '../scopes.js';
import { UserCreateSchema, UserPatchSchema } from '../users.js';
import type { Io } from './json-schema.js';
import {
  AuditEventPageResponse,
  ClientResponse,
  ClientSecretResponse,
  ClientWithSecretResponse,
  InitialAccessTokenResponse,
  RealmResponse,
  RotatedKeysResponse,
  ScopeResponse,
  SigningKeysResponse,
  TotpEnrolmentResponse,
  TrustedIssuerResponse,
  UserResponse,
} from './responses.js';

/**
 * The admin API's operations as the document describes them: each names the very zod schemas
 * its route validates with (request bodies, path and query parameters) and the schemas of
 * its answers (./responses.ts). A route added to the router and not here fails
 * test/admin/openapi.test.ts.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 415;

/** The schemas the document shows by name (components.schemas), each on the side a caller sees. */
export const NAMED_SCHEMAS = {
  RealmCreate: { schema: RealmCreateSchema, io: 'input' },
  RealmPatch: { schema: RealmPatchSchema, io: 'input' },
  Realm: { schema: RealmResponse, io: 'output' },
  ClientCreate: { schema: ClientCreateSchema, io: 'input' },
  ClientPatch: { schema: ClientMetadataPatchSchema, io: 'input' },
  Client: { schema: ClientResponse, io: 'output' },
  ClientWithSecret: { schema: ClientWithSecretResponse, io: 'output' },
  ClientSecret: { schema: ClientSecretResponse, io: 'output' },
  UserCreate: { schema: UserCreateSchema, io: 'input' },
  UserPatch: { schema: UserPatchSchema, io: 'input' },
  User: { schema: UserResponse, io: 'output' },
  TotpEnrolment: { schema: TotpEnrolmentResponse, io: 'output' },
  ScopePut: { schema: ScopePutSchema, io: 'input' },
  Scope: { schema: ScopeResponse, io: 'output' },
  SigningKeys: { schema: SigningKeysResponse, io: 'output' },
  RotatedKeys: { schema: RotatedKeysResponse, io: 'output' },
  InitialAccessTokenRequest: { schema: InitialAccessTokenRequest, io: 'input' },
  InitialAccessToken: { schema: InitialAccessTokenResponse, io: 'output' },
  TrustedIssuerCreate: { schema: TrustedIssuerCreateSchema, io: 'input' },
  TrustedIssuerPatch: { schema: TrustedIssuerPatchSchema, io: 'input' },
  TrustedIssuer: { schema: TrustedIssuerResponse, io: 'output' },
  AuditEventPage: { schema: AuditEventPageResponse, io: 'output' },
} as const satisfies Record<string, { schema: z.ZodType; io: Io }>;

export type SchemaName = keyof typeof NAMED_SCHEMAS;

/** Sub-schemas that zod emits as definitions of their own, by the name the document gives them. */
export const DEFINITION_TITLES: ReadonlyMap<unknown, string> = new Map([[UserCreateSchema.shape.claims.unwrap().valueType, 'JsonValue']]);

export interface PathParameter {
  schema: z.ZodType;
  description: string;
  example: string;
}

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
  id: { schema: z.uuid(), description: 'The trusted issuer\'s `id`, as its creation answered', example: '3f1c2b9e-8d4a-4e0f-9b71-2a6c5d8e7f10' },
};

export interface QueryParameters {
  /** The strict object schema the route parses its query with: one parameter per property. */
  schema: z.ZodObject;
  parameters: Readonly<Record<string, { description: string; example?: string }>>;
}

export interface Response {
  description: string;
  schema?: SchemaName;
  /** The answer is an array of `schema`. */
  list?: boolean;
  headers?: Readonly<Record<string, string>>;
}

export interface Operation {
  method: Method;
  /** As the router has it: `/admin/realms/:realm`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  body?: { schema: SchemaName; example: unknown };
  query?: QueryParameters;
  /** Success answers by status. */
  responses: Readonly<Partial<Record<200 | 201 | 204, Response>>>;
  /** Refusals beside 401 (every call), 400 (a body or query), 404 (a path parameter), 413 and 415 (a body). */
  errors?: readonly ErrorStatus[];
}

export const TAGS = [
  { name: 'Realms', description: 'Realms and their settings. Deleting a realm deletes everything in it.' },
  { name: 'Clients', description: 'The applications of a realm, with RFC 7591 metadata names.' },
  { name: 'Users', description: 'The people of a realm; passwords are stored as argon2id hashes only.' },
  { name: 'Scopes', description: 'What clients may request, with the text the consent page shows. `openid`, `profile` and `email` exist in every realm.' },
  { name: 'Signing keys', description: 'The keys that sign the realm\'s tokens: an RS256 and an ES256 key.' },
  { name: 'Registration', description: 'Initial access tokens for dynamic client registration (RFC 7591).' },
  { name: 'Trusted issuers', description: 'Identity systems whose JWTs or SAML 2.0 assertions the realm accepts (RFC 7523, RFC 7522, RFC 8693).' },
  { name: 'Audit events', description: 'What happened in the realm: tokens, sign-ins, consents and admin changes.' },
] as const;

const DELETED = { 204: { description: 'Deleted' } } as const;
const MERGES = 'Only the fields sent change; `null` clears an optional field.';

/** An RFC 7517 public key, for the examples. */
const EXAMPLE_PUBLIC_JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};

export const OPERATIONS: readonly Operation[] = [
  // Realms
  {
    method: 'GET', path: '/admin/realms', operationId: 'listRealms', tag: 'Realms', summary: 'List the realms',
    responses: { 200: { description: 'Every realm, root included', schema: 'Realm', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms', operationId: 'createRealm', tag: 'Realms', summary: 'Create a realm',
    description: 'Creates the realm with its signing keys and the built-in scopes; settings not given take their defaults.',
    body: { schema: 'RealmCreate', example: { name: 'acme', settings: { access_token_lifetime: 900 } } },
    responses: { 201: { description: 'The realm', schema: 'Realm' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm', operationId: 'getRealm', tag: 'Realms', summary: 'Read a realm',
    responses: { 200: { description: 'The realm', schema: 'Realm' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm', operationId: 'updateRealm', tag: 'Realms', summary: 'Change a realm\'s settings',
    description: `${MERGES} A setting set to its default stays set.`,
    body: { schema: 'RealmPatch', example: { settings: { require_pkce: true } } },
    responses: { 200: { description: 'The realm', schema: 'Realm' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm', operationId: 'deleteRealm', tag: 'Realms', summary: 'Delete a realm and everything in it',
    description: 'The root realm cannot be deleted (409).',
    responses: DELETED,
    errors: [409],
  },
  // Clients
  {
    method: 'GET', path: '/admin/realms/:realm/clients', operationId: 'listClients', tag: 'Clients', summary: 'List the realm\'s clients',
    responses: { 200: { description: 'The clients, by client_id; never a secret', schema: 'Client', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/clients', operationId: 'createClient', tag: 'Clients', summary: 'Create a client',
    description: 'A `client_id` is generated when none is given. A client authenticating with a secret receives it in this answer, once. The scopes named must exist in the realm.',
    body: { schema: 'ClientCreate', example: { client_id: 'billing', grant_types: ['client_credentials'], scope: 'orders:read' } },
    responses: { 201: { description: 'The client, with its secret when it has one', schema: 'ClientWithSecret' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/clients/:client_id', operationId: 'getClient', tag: 'Clients', summary: 'Read a client',
    responses: { 200: { description: 'The client; never its secret', schema: 'Client' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/clients/:client_id', operationId: 'updateClient', tag: 'Clients', summary: 'Change a client',
    description: `${MERGES} A client that now authenticates with a secret it never had receives one in this answer, once.`,
    body: { schema: 'ClientPatch', example: { client_name: 'Billing service' } },
    responses: { 200: { description: 'The client', schema: 'ClientWithSecret' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/clients/:client_id', operationId: 'deleteClient', tag: 'Clients', summary: 'Delete a client',
    responses: DELETED,
  },
  {
    method: 'POST', path: '/admin/realms/:realm/clients/:client_id/secret', operationId: 'rotateClientSecret', tag: 'Clients', summary: 'Rotate a client\'s secret',
    description: 'A client that does not authenticate with a secret has none to rotate (400).',
    responses: { 200: { description: 'The new secret', schema: 'ClientSecret' } },
    errors: [400],
  },
  // Users
  {
    method: 'POST', path: '/admin/realms/:realm/users', operationId: 'createUser', tag: 'Users', summary: 'Create a user',
    description: 'Claims are the person\'s OpenID Connect claims (`name`, `email`…); the server\'s own claims (`sub`, `iss`…) cannot be set.',
    body: { schema: 'UserCreate', example: { username: 'alice', password: 'correct horse battery', claims: { name: 'Alice', email: 'alice@example.com' } } },
    responses: { 201: { description: 'The user', schema: 'User' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username', operationId: 'getUser', tag: 'Users', summary: 'Read a user',
    responses: { 200: { description: 'The user', schema: 'User' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/users/:username', operationId: 'updateUser', tag: 'Users', summary: 'Change a user\'s password or claims',
    description: 'Only the fields sent change. `claims` merges into the person\'s claims: a claim sent replaces its value, a claim sent as `null` is removed.',
    body: { schema: 'UserPatch', example: { claims: { name: 'Alice Liddell' } } },
    responses: { 200: { description: 'The user', schema: 'User' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username', operationId: 'deleteUser', tag: 'Users', summary: 'Delete a user',
    description: 'Their sessions, consents and tokens go with them; their JWT access tokens are denied.',
    responses: DELETED,
  },
  {
    method: 'POST', path: '/admin/realms/:realm/users/:username/totp', operationId: 'enrolTotp', tag: 'Users', summary: 'Give a user a new TOTP secret',
    description: 'Replaces any other and is confirmed at once; the secret is answered this once (with `Cache-Control: no-store`) and stored encrypted.',
    responses: { 201: { description: 'The secret', schema: 'TotpEnrolment', headers: { 'Cache-Control': 'no-store' } } },
  },
  // Scopes
  {
    method: 'GET', path: '/admin/realms/:realm/scopes', operationId: 'listScopes', tag: 'Scopes', summary: 'List the realm\'s scopes',
    responses: { 200: { description: 'The scopes, by name', schema: 'Scope', list: true } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/scopes/:name', operationId: 'getScope', tag: 'Scopes', summary: 'Read a scope',
    responses: { 200: { description: 'The scope', schema: 'Scope' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/scopes/:name', operationId: 'putScope', tag: 'Scopes', summary: 'Create a scope or change its description',
    body: { schema: 'ScopePut', example: { description: 'Read orders' } },
    responses: { 200: { description: 'The scope, changed', schema: 'Scope' }, 201: { description: 'The scope, created', schema: 'Scope' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/scopes/:name', operationId: 'deleteScope', tag: 'Scopes', summary: 'Delete a scope',
    description: 'A built-in scope, or one a client lists, cannot be deleted (409).',
    responses: DELETED,
    errors: [409],
  },
  // Signing keys
  {
    method: 'GET', path: '/admin/realms/:realm/keys', operationId: 'listKeys', tag: 'Signing keys', summary: 'List the published signing keys',
    responses: { 200: { description: 'The current keys and the retired ones that still verify', schema: 'SigningKeys' } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/keys/rotate', operationId: 'rotateKeys', tag: 'Signing keys', summary: 'Rotate both algorithms\' keys',
    description: 'New keys sign from now on; the replaced ones stay published while tokens they signed may live.',
    responses: { 200: { description: 'The new current keys', schema: 'RotatedKeys' } },
  },
  // Registration
  {
    method: 'POST', path: '/admin/realms/:realm/initial-access-tokens', operationId: 'createInitialAccessToken', tag: 'Registration', summary: 'Issue an initial access token',
    description: 'A bearer token that lets one client register itself at `{issuer}/connect/register`; `expires_in` defaults to 86400 seconds (one day), at most 30 days. `grant_types` and `scope` widen the realm\'s registration policy (`registration_grant_types`, `registration_scopes`) for the one registration made with it, and for that client\'s later updates; the password, CIBA, token exchange and assertion grants are allowed only this way.',
    body: { schema: 'InitialAccessTokenRequest', example: { expires_in: 3600, grant_types: ['client_credentials'], scope: 'orders:read' } },
    responses: { 201: { description: 'The token, shown this once', schema: 'InitialAccessToken' } },
  },
  // Trusted issuers
  {
    method: 'GET', path: '/admin/realms/:realm/trusted-issuers', operationId: 'listTrustedIssuers', tag: 'Trusted issuers', summary: 'List the trusted issuers',
    responses: { 200: { description: 'The trusted issuers', schema: 'TrustedIssuer', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/trusted-issuers', operationId: 'createTrustedIssuer', tag: 'Trusted issuers', summary: 'Trust an issuer',
    description:
      'A `jwt` issuer is trusted by its keys (`jwks` or `jwks_uri`, exactly one), a `saml2` issuer by its `certificate_pem`. ' +
      '`subject_mapping` defaults to `username`; without `client_ids`, every client allowed the grant may present its assertions.',
    body: { schema: 'TrustedIssuerCreate', example: { kind: 'jwt', issuer: 'https://idp.example', jwks: { keys: [EXAMPLE_PUBLIC_JWK] }, client_ids: ['billing'] } },
    responses: { 201: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'getTrustedIssuer', tag: 'Trusted issuers', summary: 'Read a trusted issuer',
    responses: { 200: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'updateTrustedIssuer', tag: 'Trusted issuers', summary: 'Change a trusted issuer',
    description: `${MERGES} The kind cannot change; \`client_ids: null\` admits every client again.`,
    body: { schema: 'TrustedIssuerPatch', example: { subject_mapping: 'email' } },
    responses: { 200: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
    errors: [409],
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'deleteTrustedIssuer', tag: 'Trusted issuers', summary: 'Stop trusting an issuer',
    responses: DELETED,
  },
  // Audit events
  {
    method: 'GET', path: '/admin/realms/:realm/events', operationId: 'listEvents', tag: 'Audit events', summary: 'Read the realm\'s audit events',
    description: 'Newest first, a page at a time. Unknown query parameters are refused (400), so that a misspelt filter does not widen the answer.',
    query: {
      schema: EventQuerySchema,
      parameters: {
        type: {
          description: `Event types, repeated (\`type=a&type=b\`) or comma-separated (\`type=a,b\`), of: ${AUDIT_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}`,
          example: 'client.created,client.deleted',
        },
        client_id: { description: 'Events of this client' },
        user_id: { description: 'Events of this person, by their `sub`' },
        username: { description: 'Events of this person, by their username' },
        since: { description: 'Events at or after this instant (ISO 8601 with an offset)', example: '2026-01-31T12:00:00Z' },
        until: { description: 'Events before this instant' },
        limit: { description: `Events per page, 1 to ${MAX_EVENT_LIMIT}; ${DEFAULT_EVENT_LIMIT} when not given`, example: '50' },
        before: { description: 'The `next` value of the previous page' },
      },
    },
    responses: { 200: { description: 'A page of events', schema: 'AuditEventPage' } },
  },
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
