/**
 * The admin console's setting-sections module: a realm's settings grouped as an operator thinks
 * of them, each group with a line of help, and each setting with a name in plain words. A
 * setting this table does not name (one the server adds later) shows under "Other settings".
 * The texts are in English here and translated when shown: the console's language may change.
 */
import { t, translatable } from './i18n.js';

export interface SettingSection {
  readonly id: string;
  readonly title: string;
  readonly help: string;
  readonly settings: readonly string[];
}

export const SETTING_SECTIONS: readonly SettingSection[] = [
  {
    id: 'sign-in',
    title: translatable('Sign-in'),
    help: translatable('How people prove who they are: the methods asked for, the journeys an application may ask for by acr, and when they must sign in again.'),
    settings: ['oauth2_enabled', 'authentication', 'acr_journeys', 'reauthentication_max_age', 'allow_consent_bypass'],
  },
  {
    id: 'tokens',
    title: translatable('Tokens'),
    help: translatable('What the realm issues: how long codes and tokens live, how they are signed, and whether refresh tokens are issued and rotated.'),
    settings: [
      'signing_alg',
      'code_lifetime',
      'access_token_lifetime',
      'refresh_token_lifetime',
      'issue_refresh_tokens',
      'rotate_refresh_tokens',
      'stateless_tokens',
      'par_lifetime',
      'transaction_tokens',
      'authorization_details_types',
    ],
  },
  {
    id: 'sessions',
    title: translatable('Sessions'),
    help: translatable('How long what a person agreed to lasts, and how devices and decoupled (CIBA) requests wait for their answer.'),
    settings: ['grant_max_lifetime', 'device_code_lifetime', 'device_poll_interval', 'ciba_lifetime', 'ciba_poll_interval', 'ciba_notification_url'],
  },
  {
    id: 'registration',
    title: translatable('Registration'),
    help: translatable('Who may create an account or register an application, and the mails that verify an address or reset a password.'),
    settings: [
      'self_registration',
      'email_verification',
      'password_reset',
      'ticket_lifetime',
      'password_min_length',
      'open_registration',
      'client_id_metadata_documents',
      'registration_grant_types',
      'registration_scopes',
    ],
  },
  {
    id: 'branding',
    title: translatable('Branding'),
    help: translatable('What people see on the sign-in, consent and account pages: the name, logo, colour and languages of the realm.'),
    settings: ['display_name', 'logo_uri', 'primary_color', 'locales'],
  },
  {
    id: 'limits',
    title: translatable('Limits'),
    help: translatable('Requests per minute each endpoint accepts from one address (empty: no limit), and how long audit events are kept.'),
    settings: [
      'rate_limit_token',
      'rate_limit_par',
      'rate_limit_device',
      'rate_limit_ciba',
      'rate_limit_registration',
      'rate_limit_sign_in',
      'rate_limit_device_page',
      'rate_limit_authorize',
      'audit_event_lifetime',
    ],
  },
  {
    id: 'profiles',
    title: translatable('Profiles'),
    help: translatable('Security profiles and the stricter rules they bring: FAPI 2.0 requires pushed requests, PKCE and sender-constrained tokens.'),
    settings: ['profile', 'require_pkce', 'require_par', 'dpop_nonce'],
  },
];

/** Names in plain words; a setting not listed is named from its key. */
const LABELS: Record<string, string> = {
  oauth2_enabled: translatable('OAuth 2.0 endpoints on'),
  authentication: translatable('Sign-in methods'),
  acr_journeys: translatable('Journeys by acr value'),
  reauthentication_max_age: translatable('Sign in again after (seconds)'),
  allow_consent_bypass: translatable('Clients may skip consent'),
  signing_alg: translatable('Signing algorithm'),
  code_lifetime: translatable('Authorization code lifetime (seconds)'),
  access_token_lifetime: translatable('Access token lifetime (seconds)'),
  refresh_token_lifetime: translatable('Refresh token lifetime (seconds)'),
  issue_refresh_tokens: translatable('Issue refresh tokens'),
  rotate_refresh_tokens: translatable('Rotate refresh tokens'),
  stateless_tokens: translatable('Self-contained (JWT) access tokens'),
  par_lifetime: translatable('Pushed request lifetime (seconds)'),
  transaction_tokens: translatable('Transaction tokens'),
  authorization_details_types: translatable('Authorization details types'),
  grant_max_lifetime: translatable('Consent lasts at most (seconds)'),
  device_code_lifetime: translatable('Device code lifetime (seconds)'),
  device_poll_interval: translatable('Device poll interval (seconds)'),
  ciba_lifetime: translatable('CIBA request lifetime (seconds)'),
  ciba_poll_interval: translatable('CIBA poll interval (seconds)'),
  ciba_notification_url: translatable('CIBA notification URL'),
  self_registration: translatable('People may create an account'),
  email_verification: translatable('Verify email addresses'),
  password_reset: translatable('People may reset their password'),
  ticket_lifetime: translatable('Mail link lifetime (seconds)'),
  password_min_length: translatable('Shortest password'),
  open_registration: translatable('Open dynamic client registration'),
  client_id_metadata_documents: translatable('Client ID metadata documents'),
  registration_grant_types: translatable('Grant types registered clients may have'),
  registration_scopes: translatable('Scopes registered clients may have'),
  display_name: translatable('Display name'),
  logo_uri: translatable('Logo URL'),
  primary_color: translatable('Brand colour'),
  locales: translatable('Languages'),
  rate_limit_token: translatable('Token requests per minute'),
  rate_limit_par: translatable('Pushed requests per minute'),
  rate_limit_device: translatable('Device code requests per minute'),
  rate_limit_ciba: translatable('CIBA requests per minute'),
  rate_limit_registration: translatable('Client registrations per minute'),
  rate_limit_sign_in: translatable('Sign-in attempts per minute'),
  rate_limit_device_page: translatable('Device page requests per minute'),
  rate_limit_authorize: translatable('Authorization requests per minute'),
  audit_event_lifetime: translatable('Keep audit events for (seconds)'),
  profile: translatable('Security profile'),
  require_pkce: translatable('Require PKCE'),
  require_par: translatable('Require pushed authorization requests'),
  dpop_nonce: translatable('DPoP nonces'),
};

const RATE_LIMIT = /^rate_limit_(.+)$/;

/** A setting's name in plain words. */
export function settingLabel(name: string): string {
  const label = LABELS[name];
  if (label !== undefined) return t(label);
  const limit = RATE_LIMIT.exec(name);
  if (limit) return t('{endpoint} requests per minute', { endpoint: limit[1]!.replaceAll('_', ' ') });
  const words = name.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The settings grouped by section, in the sections' order, titles and help in the console's language; those no section names last, as "Other settings". */
export function groupSettings(names: readonly string[]): { section: SettingSection; names: string[] }[] {
  const placed = new Set(SETTING_SECTIONS.flatMap((section) => section.settings));
  const groups = SETTING_SECTIONS.map((section) => ({
    section: { ...section, title: t(section.title), help: t(section.help) },
    names: section.settings.filter((name) => names.includes(name)),
  }));
  const others = names.filter((name) => !placed.has(name));
  if (others.length > 0) {
    groups.push({ section: { id: 'other', title: t('Other settings'), help: t('Settings of this server the console has no section for yet.'), settings: others }, names: others });
  }
  return groups.filter((group) => group.names.length > 0);
}
