/**
 * The admin console's records module: the admin API's answers (CONTRACT.md §5, §10), as far as
 * the console reads them. A record the console edits as JSON keeps its other fields too.
 */

export interface RealmSummary {
  name: string;
  issuer: string;
  created_at: string;
}

export interface Realm extends RealmSummary {
  settings: Record<string, unknown>;
}

export interface Client {
  [field: string]: unknown;
  client_id: string;
  client_name: string;
  client_type: 'confidential' | 'public';
  token_endpoint_auth_method: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  scope: string;
  require_pkce: boolean;
  skip_consent: boolean;
  /** Answered once, when the client is made or its secret rotated. */
  client_secret?: string;
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  frontchannel_logout_uri?: string;
  frontchannel_logout_session_required?: boolean;
  id_token_signed_response_alg?: SigningAlg;
  authorization_signed_response_alg?: SigningAlg;
  introspection_signed_response_alg?: SigningAlg;
  backchannel_token_delivery_mode?: 'poll' | 'ping' | 'push';
  backchannel_client_notification_endpoint?: string;
  id_jag_audiences?: IdJagAudience[];
  authorization_details_types?: string[];
  transaction_token_service?: boolean;
  subject_type?: 'public' | 'pairwise';
  sector_identifier_uri?: string;
}

export type SigningAlg = 'RS256' | 'ES256';

/** An authorization server of another trust domain the client may get ID-JAGs for (CONTRACT.md §15). */
export interface IdJagAudience {
  issuer: string;
  client_id: string;
  /** Absent: any scope. */
  scope?: string;
}

export interface LinkedAccount {
  provider: string;
  subject: string;
}

export interface User {
  sub: string;
  username: string;
  claims: Record<string, unknown>;
  enabled?: boolean;
  created_at: string;
  updated_at: string;
  roles: string[];
  groups: string[];
  effective_roles: string[];
  identities?: LinkedAccount[];
}

export interface UserSession {
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  journey: string;
  acr: string;
  amr: string[];
  clients: string[];
}

export interface MappedClaim {
  name: string;
  source: string;
  tokens: string[];
}

export interface Scope {
  name: string;
  description: string;
  claims?: MappedClaim[];
}

export interface Role {
  name: string;
  description: string;
}

export interface Group extends Role {
  roles: string[];
}

export interface Resource {
  identifier: string;
  name?: string | null;
  scopes?: string[] | null;
}

/** A node of a journey (CONTRACT.md §8), as far as the console draws it. */
export interface JourneyNode {
  type: string;
  next?: Record<string, string>;
  options?: { label: string; next: string }[];
  if?: string | { client_in: string[] };
  enrol?: boolean;
}

export interface Journey {
  start: string;
  nodes: Record<string, JourneyNode>;
}

export interface NamedJourney {
  name: string;
  journey: Journey;
}

export interface SigningKey {
  kid: string;
  alg: string;
  current?: boolean;
  retired_at?: string | null;
}

export interface IdentityProvider {
  [field: string]: unknown;
  alias: string;
  issuer: string;
  client_id: string;
  display_name?: string | null;
  scope: string;
  username_claim: string;
  link_by_verified_email: boolean;
  redirect_uri: string;
}

export interface TrustedIssuer {
  [field: string]: unknown;
  id: string;
  kind: 'jwt' | 'saml2';
  issuer: string;
  subject_mapping: string;
  client_ids?: string[] | null;
  jwks?: { keys: unknown[] } | null;
  jwks_uri?: string | null;
  certificate_pem?: string | null;
  id_jag?: boolean;
  link_by_email?: boolean;
}

/** Who made an admin change (CONTRACT.md §14). */
export type Actor = { admin_token: true; sub?: undefined; client_id?: undefined } | { admin_token?: undefined; sub: string; client_id: string };

export interface AuditEvent {
  id: string;
  occurred_at: string;
  type: string;
  client_id?: string | null;
  user_id?: string | null;
  address?: string | null;
  actor?: Actor;
  details: unknown;
}

/** What an import did (PUT …/import). */
export interface ImportSummary {
  realm: string;
  realm_created: boolean;
  sections: Record<string, { created: string[]; changed: string[]; deleted: string[] }>;
  secrets_to_set: { clients: string[]; identity_providers: string[] };
}
