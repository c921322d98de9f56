import { z } from 'zod';

/**
 * An upstream OpenID provider of a realm (CONTRACT.md §10): people sign in there, and the
 * realm signs them in as the person linked to their account. The client secret is write-only:
 * it is kept encrypted and never shown (src/identity-providers/secret.ts).
 */

/** The alias names the provider in URLs (`{issuer}/broker/{alias}/callback`) and on the sign-in form. */
export const ALIAS = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/; // RFC 6749 §3.3
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const DEFAULT_SCOPE = 'openid email profile';
export const DEFAULT_USERNAME_CLAIM = 'preferred_username';

/**
 * The upstream's issuer: https, or http on a loopback address (a provider on the same
 * machine, as in development; the outbound fetcher still refuses loopback unless
 * OUTBOUND_ALLOW lists it). No query or fragment (OpenID Connect Discovery §2).
 */
const issuer = z
  .string()
  .max(2048)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    if (url.search !== '' || url.hash !== '' || value.includes('#') || url.username !== '' || url.password !== '') return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  }, 'must be an https URL without query or fragment (http only on a loopback address)')
  .describe('The upstream\'s issuer identifier; its discovery document is at `{issuer}/.well-known/openid-configuration`');

const scope = z
  .string()
  .max(1024)
  .refine((value) => {
    const tokens = value.split(' ');
    return tokens.every((token) => SCOPE_TOKEN.test(token)) && tokens.includes('openid');
  }, 'must be scope tokens separated by single spaces, `openid` among them')
  .describe(`The scope asked of the upstream; default \`${DEFAULT_SCOPE}\``);

const fields = {
  issuer,
  client_id: z.string().min(1).max(255).describe('The realm\'s client id at the upstream'),
  client_secret: z
    .string()
    .min(1)
    .max(1024)
    .describe('The realm\'s client secret at the upstream (`client_secret_basic`); stored encrypted, never returned'),
  scope,
  display_name: z.string().trim().min(1).max(100).describe('What the sign-in page calls the provider; the alias when absent'),
  username_claim: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be a claim name')
    .describe(`The upstream claim that a new person's username is made from; default \`${DEFAULT_USERNAME_CLAIM}\``),
  link_by_verified_email: z
    .boolean()
    .describe('A new upstream account whose email the upstream says is verified is linked to the one person of the realm with that email'),
};

export const IdentityProviderCreateSchema = z.strictObject({
  alias: z.string().regex(ALIAS, 'must be 1 to 63 characters of a-z, 0-9, _ and -, starting with a letter or digit').describe('The provider\'s name in the realm'),
  kind: z.literal('oidc').describe('An OpenID Connect provider, signed in to with the code flow'),
  issuer: fields.issuer,
  client_id: fields.client_id,
  client_secret: fields.client_secret,
  scope: fields.scope.optional(),
  display_name: fields.display_name.optional(),
  username_claim: fields.username_claim.optional(),
  link_by_verified_email: fields.link_by_verified_email.optional(),
});

/** Every field but the alias and the kind may change; `display_name: null` clears it. */
export const IdentityProviderPatchSchema = z.strictObject({
  issuer: fields.issuer.optional(),
  client_id: fields.client_id.optional(),
  client_secret: fields.client_secret.optional(),
  scope: fields.scope.optional(),
  display_name: fields.display_name.nullable().optional(),
  username_claim: fields.username_claim.optional(),
  link_by_verified_email: fields.link_by_verified_email.optional(),
});

/** What is stored of a provider beside its alias and its (encrypted) secret. */
export interface IdentityProviderRecord {
  readonly kind: 'oidc';
  readonly issuer: string;
  readonly client_id: string;
  readonly scope: string;
  readonly display_name?: string;
  readonly username_claim: string;
  readonly link_by_verified_email: boolean;
}

export type IdentityProviderCreate = z.output<typeof IdentityProviderCreateSchema>;
export type IdentityProviderPatch = z.output<typeof IdentityProviderPatchSchema>;

/** A new provider's record, its defaults filled in. */
export function recordOf(input: IdentityProviderCreate): IdentityProviderRecord {
  return {
    kind: input.kind,
    issuer: input.issuer,
    client_id: input.client_id,
    scope: input.scope ?? DEFAULT_SCOPE,
    ...(input.display_name === undefined ? {} : { display_name: input.display_name }),
    username_claim: input.username_claim ?? DEFAULT_USERNAME_CLAIM,
    link_by_verified_email: input.link_by_verified_email ?? false,
  };
}

/** The record of a provider, without what is stored beside it (its alias, secret and times). */
export function recordFieldsOf(provider: IdentityProviderRecord): IdentityProviderRecord {
  const { kind, issuer, client_id, scope, display_name, username_claim, link_by_verified_email } = provider;
  return { kind, issuer, client_id, scope, ...(display_name === undefined ? {} : { display_name }), username_claim, link_by_verified_email };
}

/** The record with a patch merged in (JSON merge: only the fields sent change). */
export function patched(provider: IdentityProviderRecord, patch: IdentityProviderPatch): IdentityProviderRecord {
  const { client_secret: _secret, display_name, ...rest } = patch;
  const changed = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const { display_name: current, ...merged } = { ...recordFieldsOf(provider), ...changed };
  const name = display_name === undefined ? current : (display_name ?? undefined);
  return name === undefined ? merged : { ...merged, display_name: name };
}

/** What people read on the sign-in page. */
export const displayNameOf = (alias: string, record: Pick<IdentityProviderRecord, 'display_name'>): string => record.display_name ?? alias;
