import { z } from 'zod';
import { clientAuthorizationDetailsTypes } from './authorization-details.js';
import { callbackUri, redirectUri } from './client-uris.js';
import { subjectFields } from './client-subject.js';
import { SCOPE_TOKEN } from './scope.js';
import { clientNames } from './client-names.js';

export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:openid:params:grant-type:ciba',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
/** RFC 8628 §3.4 */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code' satisfies GrantType;
/** CIBA Core §10.1 */
export const CIBA_GRANT = 'urn:openid:params:grant-type:ciba' satisfies GrantType;
/** CIBA Core §5: the token delivery modes served. */
export const BACKCHANNEL_TOKEN_DELIVERY_MODES = ['poll', 'ping', 'push'] as const;

export const AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'tls_client_auth',
  'self_signed_tls_client_auth',
  'none',
] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** Methods that authenticate with a secret the server generates. */
const SECRET_METHODS: ReadonlySet<AuthMethod> = new Set(['client_secret_basic', 'client_secret_post']);
export const usesClientSecret = (method: AuthMethod): boolean => SECRET_METHODS.has(method);

/** RFC 6749 Appendix A.1 allows any VSCHAR; we keep to characters that need no escaping in a URL path. */
export const CLIENT_ID = /^[A-Za-z0-9._~:@-]{1,128}$/;

/** Members that only private or symmetric keys have (RFC 7518 §6): a client publishes public keys only. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A public JWK (RFC 7517); a set of them is a JWKS. */
export const publicJwk = z.looseObject({ kty: z.string() }).refine((key) => PRIVATE_JWK_MEMBERS.every((member) => !(member in key)), {
  error: 'must be a public key (no private or symmetric key members)',
});

/** The client record of CONTRACT.md §5, every field named as RFC 7591 names it. */
const clientFields = {
  client_type: z.enum(['confidential', 'public']),
  client_name: z.string().max(200),
  /** Its name in other languages (./client-names.ts). */
  client_names: clientNames.optional(),
  /** RFC 7591 §2: an https image the sign-in and consent pages show beside its name (their CSP allows its origin); only an admin sets it. */
  logo_uri: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2000).optional(),
  redirect_uris: z.array(redirectUri).max(50),
  post_logout_redirect_uris: z.array(redirectUri).max(50),
  scope: z
    .string()
    .max(4000)
    .refine((value) => value === '' || value.split(' ').every((token) => SCOPE_TOKEN.test(token)), {
      error: 'must be scope names separated by single spaces',
    }),
  grant_types: z
    .array(z.enum(GRANT_TYPES))
    .refine((types) => new Set(types).size === types.length, 'grant types must not repeat'),
  token_endpoint_auth_method: z.enum(AUTH_METHODS),
  require_pkce: z.boolean(),
  /** RFC 9126 §6 `require_pushed_authorization_requests`, named as the realm setting is. */
  require_par: z.boolean(),
  /**
   * RFC 9101 §10.5: its authorization requests (at /authorize and /par) must be signed request
   * objects. Records written before it have none: false.
   */
  require_signed_request_object: z
    .boolean()
    .describe('Authorization requests (/authorize, /par) must come as a `request` object signed with a key of `jwks` or `jwks_uri` (RFC 9101)')
    .optional(),
  skip_consent: z.boolean(),
  jwks: z.strictObject({ keys: z.array(publicJwk).max(20) }).optional(),
  jwks_uri: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2000).optional(),
  tls_client_auth_subject_dn: z.string().min(1).max(1000).optional(),
  tls_client_certificate_bound_access_tokens: z.boolean(),
  introspect_any_token: z.boolean(),
  id_token_signed_response_alg: z.enum(['RS256', 'ES256']),
  /** JARM §3: the algorithm of its JWT authorization responses. Records written before it have none: RS256. */
  authorization_signed_response_alg: z
    .enum(['RS256', 'ES256'])
    .describe('The algorithm of its JWT authorization responses (JARM, `response_mode=jwt`…); absent: RS256')
    .optional(),
  /** RFC 9701 §6: the algorithm of its JWT introspection responses. Records written before it have none: RS256. */
  introspection_signed_response_alg: z
    .enum(['RS256', 'ES256'])
    .describe('The algorithm of its JWT introspection responses (RFC 9701), asked with `Accept: application/token-introspection+jwt`')
    .optional(),
  /**
   * Audiences this client may ask for with `resource` (RFC 8707) or `audience` (RFC 8693) beyond
   * the realm's registered resources (CONTRACT.md §5). Records written before it have none.
   */
  allowed_audiences: z
    .array(z.string().min(1).max(2000))
    .max(50)
    .refine((values) => new Set(values).size === values.length, 'audiences must not repeat')
    .optional(),
  authorization_details_types: clientAuthorizationDetailsTypes.optional(),
  /**
   * The `root` roles of the client's own tokens (client credentials): what its admin API calls
   * may do (CONTRACT.md §14). Meaningless in other realms; none unless an admin gives some.
   */
  roles: z
    .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be a role name'))
    .max(50)
    .refine((values) => new Set(values).size === values.length, 'roles must not repeat')
    .optional(),
  /** Back-Channel Logout 1.0 §2.2: where the end of a session it received a code or tokens in is POSTed (CONTRACT.md §12). */
  backchannel_logout_uri: callbackUri.describe('Where a `logout_token` is POSTed when a session it received a code or tokens in ends (OpenID Connect Back-Channel Logout 1.0)').optional(),
  /** §2.2: it needs `sid` in logout tokens (they always carry it). */
  backchannel_logout_session_required: z.boolean().describe('Its logout tokens must carry `sid` (they always do)').optional(),
  /** Front-Channel Logout 1.0 §2: the page the end-session page frames, with `iss` and `sid`, when a session it was given codes in ends. */
  frontchannel_logout_uri: callbackUri.describe('The page the end-session page frames, with `iss` and `sid`, after an RP-initiated logout of a session it was given codes or tokens in (OpenID Connect Front-Channel Logout 1.0)').optional(),
  frontchannel_logout_session_required: z.boolean().describe('Its front-channel logout URI must receive `iss` and `sid` (it always does)').optional(),
  /** CIBA Core §4: how it receives the outcome of its backchannel requests. Records written before it have none: poll. */
  backchannel_token_delivery_mode: z
    .enum(BACKCHANNEL_TOKEN_DELIVERY_MODES)
    .describe('CIBA: `poll` (the token endpoint), `ping` (a POST of `auth_req_id` to `backchannel_client_notification_endpoint`, then the token endpoint) or `push` (a POST of the token response, or the error, with `auth_req_id` to it; no polling); absent: poll')
    .optional(),
  /** CIBA Core §4: where a ping or push is POSTed, with the request's `client_notification_token` as Bearer token (CONTRACT.md §12). */
  backchannel_client_notification_endpoint: callbackUri.describe('CIBA: where the server POSTs `{"auth_req_id": …}` (ping) or the token response or error with `auth_req_id` (push) once the person answered (https, or http on a loopback host)').optional(),
  /**
   * The authorization servers of other trust domains, by issuer, for which this client may obtain
   * an ID-JAG by token exchange (draft-ietf-oauth-identity-assertion-authz-grant §4.3, CONTRACT.md
   * §15), with its `client_id` at each and, optionally, the `scope` it may ask there (absent: any).
   * None unless an admin gives some; the consent page names them.
   */
  id_jag_audiences: z
    .array(
      z.strictObject({
        issuer: z.url({ protocol: /^https?$/, error: 'must be an http or https URL (the issuer of RFC 8414)' }).max(2000),
        client_id: z.string().min(1).max(2000).regex(/^[^\p{C}]+$/u, 'must hold no control characters'),
        scope: z.string().max(4000).refine((value) => value.split(' ').every((token) => SCOPE_TOKEN.test(token)), 'must be scope names separated by single spaces').optional(),
      }),
    )
    .max(50)
    .refine((entries) => new Set(entries.map((entry) => entry.issuer)).size === entries.length, 'issuers must not repeat')
    .optional(),
  /**
   * The client may ask the realm for transaction tokens (draft-ietf-oauth-transaction-tokens,
   * CONTRACT.md §15): a workload of the realm's trust domain, such as its API gateway, that may
   * present any live access token of the realm as the subject. None unless an admin says so.
   */
  transaction_token_service: z.boolean().optional(),
  ...subjectFields,
  /** The journey its sign-ins walk (CONTRACT.md §8); none: the realm's choice. */
  journey: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be a journey name').optional(),
};

const ClientMetadataSchema = z.strictObject(clientFields);
export type ClientMetadata = z.output<typeof ClientMetadataSchema>;
export interface ClientRecord extends ClientMetadata {
  client_id: string;
}

/** Optional fields that a patch's `null` clears. */
export const CLEARABLE = ['client_names', 'logo_uri', 'jwks', 'jwks_uri', 'tls_client_auth_subject_dn', 'journey', 'sector_identifier_uri'] as const;
export const CLEARABLE_URIS = ['backchannel_logout_uri', 'frontchannel_logout_uri', 'backchannel_client_notification_endpoint'] as const;

/**
 * What an admin may send: any subset of the metadata; `client_id` only when creating.
 * `null` clears an optional field.
 */
export const ClientMetadataPatchSchema = ClientMetadataSchema.partial().extend({
  client_names: clientFields.client_names.nullable(),
  logo_uri: clientFields.logo_uri.nullable(),
  jwks: clientFields.jwks.nullable(),
  jwks_uri: clientFields.jwks_uri.nullable(),
  tls_client_auth_subject_dn: clientFields.tls_client_auth_subject_dn.nullable(),
  journey: clientFields.journey.nullable(),
  sector_identifier_uri: subjectFields.sector_identifier_uri.nullable(),
  backchannel_logout_uri: clientFields.backchannel_logout_uri.nullable(),
  frontchannel_logout_uri: clientFields.frontchannel_logout_uri.nullable(),
  backchannel_client_notification_endpoint: clientFields.backchannel_client_notification_endpoint.nullable(),
});
export type ClientMetadataPatch = z.output<typeof ClientMetadataPatchSchema>;
export const ClientCreateSchema = ClientMetadataPatchSchema.extend({
  client_id: z.string().regex(CLIENT_ID, 'must be 1 to 128 characters of A-Z a-z 0-9 . _ ~ : @ -').optional(),
});

/**
 * What an initial access token allows a registration beyond the realm's registration policy
 * (CONTRACT.md §5 `grant_types` and `scope`). It is kept on the client it registered, so that
 * the client's later updates may still use it.
 */
export interface RegistrationAllowance {
  grant_types: GrantType[];
  /** Space-separated scope names. */
  scope: string;
  /** RFC 9396 types of the realm's `authorization_details_types`; absent from allowances written before them: none. */
  authorization_details_types?: string[];
}
