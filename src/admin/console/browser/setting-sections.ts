/**
 * The admin console's setting-sections module: a realm's settings grouped as an operator thinks
 * of them, each group with a line of help, and each setting with a name in plain words. A
 * setting this table does not name (one the server adds later) shows under "Other settings".
 * The texts are in English here and translated when shown: the console's language may change.
 */
import { t } from './i18n.js';

export interface SettingSection {
  readonly id: string;
  readonly title: string;
  readonly help: string;
  readonly settings: readonly string[];
}

export const SETTING_SECTIONS: readonly SettingSection[] = [
  {
    id: 'sign-in',
    title: 'Sign-in',
    help: 'How people prove who they are: the methods asked for, the journeys an application may ask for by acr, and when they must sign in again.',
    settings: ['oauth2_enabled', 'authentication', 'acr_journeys', 'reauthentication_max_age', 'allow_consent_bypass'],
  },
  {
    id: 'tokens',
    title: 'Tokens',
    help: 'What the realm issues: how long codes and tokens live, how they are signed, and whether refresh tokens are issued and rotated.',
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
    title: 'Sessions',
    help: 'How long what a person agreed to lasts, and how devices and decoupled (CIBA) requests wait for their answer.',
    settings: ['grant_max_lifetime', 'device_code_lifetime', 'device_poll_interval', 'ciba_lifetime', 'ciba_poll_interval', 'ciba_notification_url'],
  },
  {
    id: 'registration',
    title: 'Registration',
    help: 'Who may create an account or register an application, and the mails that verify an address or reset a password.',
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
    title: 'Branding',
    help: 'What people see on the sign-in, consent and account pages: the name, logo, colour and languages of the realm.',
    settings: ['display_name', 'logo_uri', 'primary_color', 'locales'],
  },
  {
    id: 'limits',
    title: 'Limits',
    help: 'Requests per minute each endpoint accepts from one address (empty: no limit), and how long audit events are kept.',
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
    title: 'Profiles',
    help: 'Security profiles and the stricter rules they bring: FAPI 2.0 requires pushed requests, PKCE and sender-constrained tokens.',
    settings: ['profile', 'require_pkce', 'require_par', 'dpop_nonce'],
  },
];

/** Names in plain words; a setting not listed is named from its key. */
const LABELS: Record<string, string> = {
  oauth2_enabled: 'OAuth 2.0 endpoints on',
  authentication: 'Sign-in methods',
  acr_journeys: 'Journeys by acr value',
  reauthentication_max_age: 'Sign in again after (seconds)',
  allow_consent_bypass: 'Clients may skip consent',
  signing_alg: 'Signing algorithm',
  code_lifetime: 'Authorization code lifetime (seconds)',
  access_token_lifetime: 'Access token lifetime (seconds)',
  refresh_token_lifetime: 'Refresh token lifetime (seconds)',
  issue_refresh_tokens: 'Issue refresh tokens',
  rotate_refresh_tokens: 'Rotate refresh tokens',
  stateless_tokens: 'Self-contained (JWT) access tokens',
  par_lifetime: 'Pushed request lifetime (seconds)',
  transaction_tokens: 'Transaction tokens',
  authorization_details_types: 'Authorization details types',
  grant_max_lifetime: 'Consent lasts at most (seconds)',
  device_code_lifetime: 'Device code lifetime (seconds)',
  device_poll_interval: 'Device poll interval (seconds)',
  ciba_lifetime: 'CIBA request lifetime (seconds)',
  ciba_poll_interval: 'CIBA poll interval (seconds)',
  ciba_notification_url: 'CIBA notification URL',
  self_registration: 'People may create an account',
  email_verification: 'Verify email addresses',
  password_reset: 'People may reset their password',
  ticket_lifetime: 'Mail link lifetime (seconds)',
  password_min_length: 'Shortest password',
  open_registration: 'Open dynamic client registration',
  client_id_metadata_documents: 'Client ID metadata documents',
  registration_grant_types: 'Grant types registered clients may have',
  registration_scopes: 'Scopes registered clients may have',
  display_name: 'Display name',
  logo_uri: 'Logo URL',
  primary_color: 'Brand colour',
  locales: 'Languages',
  rate_limit_token: 'Token requests per minute',
  rate_limit_par: 'Pushed requests per minute',
  rate_limit_device: 'Device code requests per minute',
  rate_limit_ciba: 'CIBA requests per minute',
  rate_limit_registration: 'Client registrations per minute',
  rate_limit_sign_in: 'Sign-in attempts per minute',
  rate_limit_device_page: 'Device page requests per minute',
  rate_limit_authorize: 'Authorization requests per minute',
  audit_event_lifetime: 'Keep audit events for (seconds)',
  profile: 'Security profile',
  require_pkce: 'Require PKCE',
  require_par: 'Require pushed authorization requests',
  dpop_nonce: 'DPoP nonces',
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
