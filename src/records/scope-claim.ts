import { z } from 'zod';
import { ASKED_USERINFO_CLAIM, CLIENT_SUBJECT_CLAIM, GRANT_ID_CLAIM } from './jwt-claims.js';

/**
 * The claims a scope maps (CONTRACT.md §10 "Claims from scopes"): `{name, source, tokens}`,
 * stored with the scope (src/store/scopes.ts) and released by src/tokens/scope-claims.ts.
 */

/** Where a mapped claim goes. */
export const CLAIM_TOKENS = ['id_token', 'access_token', 'userinfo', 'introspection'] as const;
export type ClaimToken = (typeof CLAIM_TOKENS)[number];

/** Where a mapped claim's value comes from, beside `attribute:<key>` (a key of the person's `claims`). */
export const CLAIM_SOURCES = ['roles', 'groups', 'username', 'email'] as const;
export const ATTRIBUTE_SOURCE_PREFIX = 'attribute:';

/**
 * Claims the server sets itself in some token or answer: a scope cannot map them, so that no
 * person's data can stand in for who issued a token, to whom, for what and until when.
 */
export const RESERVED_CLAIM_NAMES: ReadonlySet<string> = new Set([
  // RFC 7519 §4.1
  'iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti',
  // OpenID Connect Core §2, §3.1.3.6; RFC 9068; RFC 8693; RFC 8705; RFC 7662
  'auth_time', 'nonce', 'acr', 'amr', 'azp', 'at_hash', 'c_hash', 'sid', 'typ',
  'cnf', 'act', 'may_act', 'scope', 'client_id', 'active', 'token_type', 'username', 'realm',
  GRANT_ID_CLAIM, CLIENT_SUBJECT_CLAIM, ASKED_USERINFO_CLAIM,
]);

/** Printable ASCII without spaces: short names and collision-resistant URIs alike (RFC 7519 §4.2). */
const CLAIM_NAME = /^[\x21-\x7E]{1,255}$/;
/** A key of the person's `claims` map (at most 100 characters, as the admin API's users take them). */
const ATTRIBUTE_SOURCE = /^attribute:[^\x00-\x1F\x7F]{1,100}$/;

const name = z
  .string()
  .regex(CLAIM_NAME, 'must be 1 to 255 printable ASCII characters without spaces')
  .refine((value) => !RESERVED_CLAIM_NAMES.has(value), 'is set by the server and cannot be mapped')
  .describe('The claim\'s name in the tokens and answers');

const source = z
  .union([z.enum(CLAIM_SOURCES), z.string().regex(ATTRIBUTE_SOURCE)], {
    error: 'must be roles, groups, username, email or attribute:<key>',
  })
  .describe(
    '`roles`: the person\'s roles, their own and their groups\' (an array of names); `groups`: their groups (an array of names); ' +
      '`username`; `email`; `attribute:<key>`: the value of `<key>` in the person\'s `claims`. A claim whose value the person lacks is left out.',
  );

const tokens = z
  .array(z.enum(CLAIM_TOKENS))
  .min(1, 'must name at least one of id_token, access_token, userinfo, introspection')
  .refine((values) => new Set(values).size === values.length, 'names a token twice')
  .describe('Where the claim goes: the ID token, JWT access tokens, the UserInfo answer, the introspection answer');

export const ScopeClaimSchema = z.strictObject({ name, source, tokens });
export type ScopeClaim = z.output<typeof ScopeClaimSchema>;

export const ScopeClaimsSchema = z
  .array(ScopeClaimSchema)
  .max(50, 'must be at most 50 claims')
  .refine((claims) => new Set(claims.map((claim) => claim.name)).size === claims.length, 'maps a claim name twice')
  .describe('Claims about the person that a token carries when its scope holds this scope; sent, they replace the stored ones');
