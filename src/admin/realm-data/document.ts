import { z } from 'zod';
import { OAuthError } from '../../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../json-depth.js';
import { briefProblems, printable } from '../../http/input-limits.js';
import { TrustedIssuerCreateSchema } from '../../records/trusted-issuer.js';
import { ClientCreateSchema } from '../../records/client.js';
import { IdentityProviderCreateSchema } from '../../records/identity-provider.js';
import { RealmSettingsPatchSchema } from '../../records/realm-settings.js';
import { GroupPathSchema, GroupPutSchema } from '../groups.js';
import { JourneyPathSchema } from '../journeys.js';
import { ResourcePutSchema } from '../resources.js';
import { RolePathSchema, RolePutSchema } from '../roles.js';
import { ScopePathSchema, ScopePutSchema } from '../scopes.js';
import { UserCreateSchema, UserPatchSchema } from '../users.js';
import { TextsPathSchema, TextsPutSchema } from '../texts.js';

/**
 * A realm as data (CONTRACT.md §10, docs/realms-as-data.md): what `GET …/export` answers and
 * `PUT …/import` applies. Each entry is checked by the admin API's own schema for that
 * resource (the body that creates it), so that the document accepts what the API accepts.
 * Secrets are never in an export: no client secrets or their hashes, no identity provider
 * secrets, no signing keys, no one-time-code secrets or passkeys.
 */

export const REALM_DOCUMENT_VERSION = 1;

/**
 * An argon2 hash in the PHC string format, as the server stores passwords: its parameters in
 * the standard order m, t, p, or in node-argon2's m, p, t (src/authn/password-hashing.ts).
 */
const ARGON2_PHC = /^\$argon2(?:id|i|d)\$v=\d{1,3}\$m=\d{1,10},(?:t=\d{1,10},p=\d{1,3}|p=\d{1,3},t=\d{1,10})\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}$/;

export const ScopeEntrySchema = ScopePutSchema.extend({ name: ScopePathSchema.shape.name });

export const RoleEntrySchema = RolePutSchema.extend({ name: RolePathSchema.shape.role });

export const GroupEntrySchema = GroupPutSchema.extend({ name: GroupPathSchema.shape.group });

const groupNames = z
  .array(GroupPathSchema.shape.group)
  .max(1000)
  .refine((groups) => new Set(groups).size === groups.length, 'names a group twice');

/** A client as created, with its `client_id`; no secret: a confidential client's is set after the import. */
export const ClientEntrySchema = ClientCreateSchema.extend({ client_id: ClientCreateSchema.shape.client_id.unwrap() });

/** As created, but the secret may be left out (an export has none): the provider then waits for one. */
export const IdentityProviderEntrySchema = IdentityProviderCreateSchema.extend({
  client_secret: IdentityProviderCreateSchema.shape.client_secret
    .optional()
    .describe('Never in an export. Given, it becomes the provider\'s secret; left out, a new provider has none until it is set'),
});

export const TrustedIssuerEntrySchema = TrustedIssuerCreateSchema;

/** As the admin API registers it; a field left out (or null) is none. */
export const ResourceEntrySchema = ResourcePutSchema;

export const IdentityEntrySchema = z.strictObject({
  provider: IdentityProviderCreateSchema.shape.alias.describe('The identity provider\'s alias'),
  subject: z.string().min(1).max(255).describe('The person\'s `sub` at the provider'),
});

export const PersonEntrySchema = UserCreateSchema.omit({ password: true }).extend({
  sub: z.uuid().optional().describe('The person\'s subject identifier, kept by the import; a new one is made when it is left out'),
  password_hash: z
    .string()
    .max(1024)
    .regex(ARGON2_PHC, 'must be an argon2 hash in the PHC string format ($argon2id$v=19$m=…,t=…,p=…$salt$hash)')
    .optional()
    .describe('The argon2id hash of the person\'s password, as stored; none: they sign in otherwise. An import never removes a password'),
  enabled: UserPatchSchema.shape.enabled.describe('false: the person signs in nowhere; left out: true'),
  identities: z.array(IdentityEntrySchema).max(100).optional().describe('The upstream accounts linked to the person'),
  roles: GroupPutSchema.shape.roles.describe('The roles given to the person directly, each a role of the realm'),
  groups: groupNames.optional().describe('The person\'s groups, each a group of the realm'),
});

const listOf = <Entry extends z.ZodType>(entry: Entry, max: number, description: string) => z.array(entry).max(max).optional().describe(description);

export const RealmDocumentSchema = z.strictObject({
  version: z.literal(REALM_DOCUMENT_VERSION).optional().describe('The document format\'s version'),
  realm: z.string().max(63).optional().describe('The name of the realm it was exported from; the import applies it to the realm of its path'),
  settings: RealmSettingsPatchSchema.optional().describe('The realm\'s settings; those left out take their defaults'),
  scopes: listOf(ScopeEntrySchema, 1_000, 'The realm\'s scopes, the built-in ones included, with the claims each maps'),
  journeys: z
    .record(JourneyPathSchema.shape.journey, z.unknown().describe('A journey, as `PUT …/journeys/{journey}` takes it (schema Journey)'))
    .optional()
    .describe('The journeys stored in the realm, by name; `default` only when one is stored'),
  roles: listOf(RoleEntrySchema, 10_000, 'The realm\'s roles'),
  groups: listOf(GroupEntrySchema, 10_000, 'The realm\'s groups, with the roles each gives'),
  clients: listOf(ClientEntrySchema, 10_000, 'The realm\'s clients, without their secrets'),
  identity_providers: listOf(IdentityProviderEntrySchema, 100, 'The realm\'s upstream OpenID providers, without their secrets'),
  trusted_issuers: listOf(TrustedIssuerEntrySchema, 1_000, 'The identity systems whose assertions the realm accepts'),
  resources: listOf(ResourceEntrySchema, 10_000, 'The realm\'s registered resources (APIs), by identifier'),
  texts: z
    .partialRecord(TextsPathSchema.shape.locale, TextsPutSchema)
    .optional()
    .describe('The realm\'s own words for its pages and mails, by language, as `PUT …/texts/{locale}` takes them'),
  users: listOf(PersonEntrySchema, 1_000_000, 'The realm\'s people, when exported with `users=true`'),
});

export type RealmDocument = z.output<typeof RealmDocumentSchema>;
export type RealmDocumentInput = z.input<typeof RealmDocumentSchema>;
export type ScopeEntry = z.output<typeof ScopeEntrySchema>;
export type RoleEntry = z.output<typeof RoleEntrySchema>;
export type GroupEntry = z.output<typeof GroupEntrySchema>;
export type ClientEntry = z.output<typeof ClientEntrySchema>;
export type IdentityProviderEntry = z.output<typeof IdentityProviderEntrySchema>;
export type TrustedIssuerEntry = z.output<typeof TrustedIssuerEntrySchema>;
export type ResourceEntry = z.output<typeof ResourceEntrySchema>;
export type PersonEntry = z.output<typeof PersonEntrySchema>;

/** The document sits a few levels above its entries: those nest as deep as the admin API lets them. */
const DOCUMENT_DEPTH = MAX_JSON_DEPTH + 4;

/** Where the first NUL character is, in a string or a name: PostgreSQL stores neither. */
function nulPath(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\0')) return [...path, key.replaceAll('\0', '?')];
    const found = nulPath(inner, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** The document as the import reads it; its problems named by their paths (`clients.2.redirect_uris.0: …`). */
export function parseDocument(body: unknown): RealmDocument {
  if (nestsDeeperThan(body, DOCUMENT_DEPTH)) throw new OAuthError('invalid_request', `body: nests deeper than ${DOCUMENT_DEPTH} levels`);
  const result = RealmDocumentSchema.safeParse(body ?? {});
  if (!result.success) throw new OAuthError('invalid_request', briefProblems(result.error.issues));
  const nul = nulPath(body);
  if (nul) throw new OAuthError('invalid_request', printable(`${nul.join('.') || 'body'}: holds a NUL character`, 300));
  return result.data;
}
