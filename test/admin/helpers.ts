import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Realm settings and their defaults, as CONTRACT.md §5 lists them. */
export const DEFAULT_SETTINGS = {
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
  grant_max_lifetime: 2592000,
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
  audit_event_lifetime: 7776000,
  authentication: ['password'],
  display_name: null,
  logo_uri: null,
  primary_color: null,
  locales: ['en', 'de', 'fr'],
  acr_journeys: {},
  transaction_tokens: null,
  authorization_details_types: {},
} as const;

/** The settings that are lifetimes or intervals: positive whole seconds. */
export const SECONDS_SETTINGS = [
  'code_lifetime',
  'access_token_lifetime',
  'refresh_token_lifetime',
  'par_lifetime',
  'device_code_lifetime',
  'device_poll_interval',
  'ciba_lifetime',
  'audit_event_lifetime',
  'ciba_poll_interval',
  'grant_max_lifetime',
  'reauthentication_max_age',
  'ticket_lifetime',
] as const;

/** Parts of a private JWK (RFC 7518 §6.2.2, §6.3.2) that a published key must never carry. */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

export const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every admin error is exactly `{error, error_description}` JSON (CONTRACT.md §5). */
export function expectAdminError(response: LightMyRequestResponse, status: number, error: string): void {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.json()).toEqual({ error, error_description: expect.stringMatching(/\S/) });
}
