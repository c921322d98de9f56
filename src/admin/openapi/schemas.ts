import type { z } from 'zod';
import { TrustedIssuerCreateSchema, TrustedIssuerPatchSchema } from '../../records/trusted-issuer.js';
import { ClientCreateSchema, ClientMetadataPatchSchema } from '../../records/client.js';
import { IdentityProviderCreateSchema, IdentityProviderPatchSchema } from '../../records/identity-provider.js';
import { GroupPutSchema } from '../groups.js';
import { InitialAccessTokenRequest } from '../initial-access-tokens.js';
import { RealmDocumentSchema } from '../realm-data/document.js';
import { RealmImportSummarySchema } from '../realm-data/summary-schema.js';
import { RealmCreateSchema, RealmPatchSchema } from '../realms.js';
import { ResourcePutSchema } from '../resources.js';
import { RolePutSchema } from '../roles.js';
import { ScopePutSchema } from '../scopes.js';
import { UserCreateSchema, UserPatchSchema } from '../users.js';
import { JourneyListResponse, JourneySchema } from './journey-schema.js';
import type { Io } from './json-schema.js';
import {
  AuditEventPageResponse,
  ClientResponse,
  ClientSecretResponse,
  IdentityProviderResponse,
  ClientWithSecretResponse,
  GroupResponse,
  InitialAccessTokenResponse,
  RealmResponse,
  ResourceLookupResponse,
  ResourceResponse,
  RoleResponse,
  RealmPermissionsResponse,
  RotatedKeysResponse,
  ScopeResponse,
  SigningKeysResponse,
  TotpEnrolmentResponse,
  TrustedIssuerResponse,
  UserPageResponse,
  UserResponse,
  UserSessionsResponse,
} from './responses.js';
import { UserConsentsResponse, UserPasskeysResponse, WebhookListResponse, WebhookResponse } from './operator-responses.js';
import { WebhookPutSchema } from '../webhooks.js';
import { TextCatalogueResponse, TextsPutSchema } from '../texts.js';
import { OperatorMailSchema } from '../user-mails.js';

/** The schemas the document shows by name (components.schemas), each on the side a caller sees. */
export const NAMED_SCHEMAS = {
  RealmCreate: { schema: RealmCreateSchema, io: 'input' },
  RealmPatch: { schema: RealmPatchSchema, io: 'input' },
  Realm: { schema: RealmResponse, io: 'output' },
  RealmDocument: { schema: RealmDocumentSchema, io: 'input' },
  RealmImportSummary: { schema: RealmImportSummarySchema, io: 'output' },
  ClientCreate: { schema: ClientCreateSchema, io: 'input' },
  ClientPatch: { schema: ClientMetadataPatchSchema, io: 'input' },
  Client: { schema: ClientResponse, io: 'output' },
  ClientWithSecret: { schema: ClientWithSecretResponse, io: 'output' },
  ClientSecret: { schema: ClientSecretResponse, io: 'output' },
  UserCreate: { schema: UserCreateSchema, io: 'input' },
  UserPatch: { schema: UserPatchSchema, io: 'input' },
  User: { schema: UserResponse, io: 'output' },
  UserPage: { schema: UserPageResponse, io: 'output' },
  UserSessions: { schema: UserSessionsResponse, io: 'output' },
  TotpEnrolment: { schema: TotpEnrolmentResponse, io: 'output' },
  ScopePut: { schema: ScopePutSchema, io: 'input' },
  Scope: { schema: ScopeResponse, io: 'output' },
  SigningKeys: { schema: SigningKeysResponse, io: 'output' },
  RotatedKeys: { schema: RotatedKeysResponse, io: 'output' },
  RealmPermissions: { schema: RealmPermissionsResponse, io: 'output' },
  InitialAccessTokenRequest: { schema: InitialAccessTokenRequest, io: 'input' },
  InitialAccessToken: { schema: InitialAccessTokenResponse, io: 'output' },
  TrustedIssuerCreate: { schema: TrustedIssuerCreateSchema, io: 'input' },
  TrustedIssuerPatch: { schema: TrustedIssuerPatchSchema, io: 'input' },
  TrustedIssuer: { schema: TrustedIssuerResponse, io: 'output' },
  AuditEventPage: { schema: AuditEventPageResponse, io: 'output' },
  Journey: { schema: JourneySchema, io: 'input' },
  JourneyList: { schema: JourneyListResponse, io: 'output' },
  IdentityProviderCreate: { schema: IdentityProviderCreateSchema, io: 'input' },
  IdentityProviderPatch: { schema: IdentityProviderPatchSchema, io: 'input' },
  IdentityProvider: { schema: IdentityProviderResponse, io: 'output' },
  RolePut: { schema: RolePutSchema, io: 'input' },
  Role: { schema: RoleResponse, io: 'output' },
  GroupPut: { schema: GroupPutSchema, io: 'input' },
  Group: { schema: GroupResponse, io: 'output' },
  ResourcePut: { schema: ResourcePutSchema, io: 'input' },
  Resource: { schema: ResourceResponse, io: 'output' },
  ResourceLookup: { schema: ResourceLookupResponse, io: 'output' },
  OperatorMail: { schema: OperatorMailSchema, io: 'input' },
  UserPasskeys: { schema: UserPasskeysResponse, io: 'output' },
  UserConsents: { schema: UserConsentsResponse, io: 'output' },
  WebhookPut: { schema: WebhookPutSchema, io: 'input' },
  Webhook: { schema: WebhookResponse, io: 'output' },
  WebhookList: { schema: WebhookListResponse, io: 'output' },
  Texts: { schema: TextsPutSchema, io: 'input' },
  TextCatalogue: { schema: TextCatalogueResponse, io: 'output' },
} as const satisfies Record<string, { schema: z.ZodType; io: Io }>;

export type SchemaName = keyof typeof NAMED_SCHEMAS;

/** Sub-schemas that zod emits as definitions of their own, by the name the document gives them. */
export const DEFINITION_TITLES: ReadonlyMap<unknown, string> = new Map([[UserCreateSchema.shape.claims.unwrap().valueType, 'JsonValue']]);
