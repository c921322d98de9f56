import { z } from 'zod';
import { authorizationDetailsTypesSetting } from './authorization-details.js';
import { GRANT_TYPES } from './client.js';
import { SHIPPED_LOCALES, SUPPORTED_LOCALES, isLocale } from './locales.js';
import { SCOPE_TOKEN } from './scope.js';

/** Lifetimes and intervals: positive whole seconds (1 and 2 are valid). */
const seconds = z.number().int().positive().max(10 * 365 * 24 * 3600);

/** A rate limit: requests per minute, or null for none (src/rate-limits/). */
const perMinute = z.number().int().positive().max(1_000_000).nullable();

/**
 * The sign-in steps a realm may list, in order (CONTRACT.md §5): `risk` decides whether the
 * steps after it are needed (src/authn/risk.ts).
 */
export const AUTHENTICATION_STEPS = ['password', 'otp', 'passkey', 'risk'] as const;
export type AuthenticationStep = (typeof AUTHENTICATION_STEPS)[number];

/** Realm settings of CONTRACT.md §5. */
const settingFields = {
  oauth2_enabled: z.boolean(),
  code_lifetime: seconds,
  access_token_lifetime: seconds,
  refresh_token_lifetime: seconds,
  issue_refresh_tokens: z.boolean(),
  rotate_refresh_tokens: z.boolean(),
  stateless_tokens: z.boolean(),
  /** RFC 9449 §8: DPoP proofs must carry a nonce of the server's (src/dpop/nonces.ts). */
  dpop_nonce: z.boolean(),
  signing_alg: z.enum(['ES256', 'RS256']),
  require_pkce: z.boolean(),
  allow_consent_bypass: z.boolean(),
  require_par: z.boolean(),
  /** "fapi2": the FAPI 2.0 Security Profile's rules apply to the realm (src/profiles/fapi2.ts, docs/fapi2.md). */
  profile: z.enum(['default', 'fapi2'], { error: 'must be "default" or "fapi2"' }),
  par_lifetime: seconds,
  device_code_lifetime: seconds,
  device_poll_interval: seconds,
  ciba_lifetime: seconds,
  ciba_poll_interval: seconds,
  /** Where each new CIBA request is announced (src/endpoints/backchannel-notification.ts); null: nowhere. */
  ciba_notification_url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2000).nullable(),
  open_registration: z.boolean(),
  /**
   * A client_id that is an https URL names the client's metadata document, fetched from it
   * (draft-ietf-oauth-client-id-metadata-document, src/clients/metadata-document-clients.ts).
   */
  client_id_metadata_documents: z.boolean(),
  /** What a dynamically registered client may ask for, unless its initial access token allows more (CONTRACT.md §5). */
  registration_grant_types: z
    .array(z.enum(GRANT_TYPES))
    .refine((types) => new Set(types).size === types.length, 'grant types must not repeat'),
  registration_scopes: z.array(z.string().regex(SCOPE_TOKEN, 'must be a scope name')).max(200),
  /** No token of a grant outlives the grant's start by more (CONTRACT.md §5); null: no cap. */
  grant_max_lifetime: seconds.nullable(),
  /** Seconds since the last sign-in within which the account page accepts credential changes. */
  reauthentication_max_age: seconds,
  /** People manage themselves (CONTRACT.md §9); each of these three needs outgoing mail (MAIL_FEATURES). */
  self_registration: z.boolean(),
  email_verification: z.boolean(),
  password_reset: z.boolean(),
  /** Seconds a mailed ticket (email verification, password reset) works. */
  ticket_lifetime: seconds,
  /** The fewest characters (code points) of a password a person or an admin sets (src/authn/password-policy.ts). */
  password_min_length: z.number().int().min(1).max(1024),
  /** Per authenticated client, shared by every instance, at each endpoint (docs/operations.md "Rate limits"). */
  rate_limit_token: perMinute,
  rate_limit_par: perMinute,
  rate_limit_device: perMinute,
  rate_limit_ciba: perMinute,
  /** Per initial access token, registration access token or (open registration) address. */
  rate_limit_registration: perMinute,
  /** Per address, shared by every instance: posts to the sign-in steps and the device page. */
  rate_limit_sign_in: perMinute,
  rate_limit_device_page: perMinute,
  /** Per address: sign-in transactions begun (/authorize and the pages) and passkey challenges of the sign-in page. */
  rate_limit_authorize: perMinute,
  /** How long the realm's audit events are kept (src/audit/). */
  audit_event_lifetime: seconds,
  authentication: z
    .array(z.enum(AUTHENTICATION_STEPS))
    .min(1)
    .refine((steps) => new Set(steps).size === steps.length, 'steps must not repeat')
    // The first step must tell who signs in: a one-time code or the risk step needs a person.
    .refine((steps) => steps[0] === 'password' || steps[0] === 'passkey', 'the first step must be password or passkey'),
  /** The journey each `acr_values` value asks for (CONTRACT.md §8); the journeys must exist. */
  /** Branding (CONTRACT.md §10): the realm's name as people read it; null: the realm's name. */
  display_name: z.string().trim().min(1).max(100).regex(/^[^\p{C}]*$/u, 'must hold no control characters').nullable(),
  /** An image the pages show above their title; the pages' CSP allows its origin alone. */
  logo_uri: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2000).nullable(),
  /**
   * The colour of the pages' main buttons. Any colour reaches WCAG AA (4.5:1) with white or
   * black text, and the pages pick the one that contrasts more (src/pages/branding.ts).
   */
  primary_color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb').nullable(),
  /** The languages of the pages and mails (CONTRACT.md §10), the first the one shown when none asked for is offered. */
  locales: z
    .array(z.string().refine(isLocale, { error: () => `must be one of ${SUPPORTED_LOCALES.join(', ')}` }))
    .min(1)
    .refine((locales) => new Set(locales).size === locales.length, 'locales must not repeat'),
  /**
   * Transaction tokens (draft-ietf-oauth-transaction-tokens, CONTRACT.md §15): the trust domain
   * they name as `aud`, and their lifetime in seconds (at most 300, default 60); null: none issued.
   */
  transaction_tokens: z
    .strictObject({
      trust_domain: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (a URI or a name)'),
      lifetime: z.number().int().positive().max(300, 'at most 300 seconds (transaction tokens are short-lived)').optional(),
    })
    .nullable(),
  acr_journeys: z
    .record(z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be an acr value (no spaces)'), z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be a journey name'))
    .refine((mapping) => Object.keys(mapping).length <= 50, 'at most 50 acr values')
    .refine((mapping) => !Object.hasOwn(mapping, '0'), 'acr "0" is the acr of no mapping'),
  /** RFC 9396 (CONTRACT.md §13): the `authorization_details` types of the realm, each with the JSON Schema of one entry. */
  authorization_details_types: authorizationDetailsTypesSetting,
};

export type RealmSettings = Readonly<{ [K in keyof typeof settingFields]: z.output<(typeof settingFields)[K]> }>;

export const DEFAULT_SETTINGS: RealmSettings = Object.freeze<RealmSettings>({
  oauth2_enabled: true,
  code_lifetime: 120,
  access_token_lifetime: 3600,
  refresh_token_lifetime: 604800,
  issue_refresh_tokens: true,
  rotate_refresh_tokens: true,
  stateless_tokens: false,
  dpop_nonce: false,
  signing_alg: 'ES256',
  require_pkce: false,
  allow_consent_bypass: false,
  require_par: false,
  profile: 'default',
  par_lifetime: 90,
  device_code_lifetime: 300,
  device_poll_interval: 5,
  ciba_lifetime: 600,
  ciba_poll_interval: 2,
  ciba_notification_url: null,
  open_registration: false,
  client_id_metadata_documents: false,
  registration_grant_types: ['authorization_code', 'refresh_token'],
  registration_scopes: ['openid', 'profile', 'email'],
  grant_max_lifetime: 30 * 24 * 3600,
  reauthentication_max_age: 300,
  self_registration: false,
  email_verification: false,
  password_reset: false,
  ticket_lifetime: 900,
  password_min_length: 8,
  rate_limit_token: 6000,
  rate_limit_par: 600,
  rate_limit_device: 120,
  rate_limit_ciba: 600,
  rate_limit_registration: 60,
  rate_limit_sign_in: 300,
  rate_limit_device_page: 300,
  rate_limit_authorize: 300,
  audit_event_lifetime: 90 * 24 * 3600,
  authentication: ['password'],
  display_name: null,
  logo_uri: null,
  primary_color: null,
  locales: [...SHIPPED_LOCALES],
  acr_journeys: {},
  transaction_tokens: null,
  authorization_details_types: {},
});

/** The settings that turn on a feature that sends mail: refused without `SMTP_URL` (src/admin/realms.ts). */
export const MAIL_FEATURES = ['self_registration', 'email_verification', 'password_reset'] as const;

/** Settings as sent by an admin: any subset, each value checked, unknown names refused. */
export const RealmSettingsPatchSchema = z.strictObject(settingFields).partial();
export type RealmSettingsPatch = z.output<typeof RealmSettingsPatchSchema>;

/**
 * A realm stores only the settings an admin set; the defaults (including settings added by
 * later versions) fill the rest when it is read.
 */
export function resolveSettings(stored: RealmSettingsPatch): RealmSettings {
  return Object.freeze({ ...DEFAULT_SETTINGS, ...stored });
}
