import { z } from 'zod';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import { briefProblems } from '../http/input-limits.js';
import { registeredNames, registrationNamesView } from './registration-names.js';
import { type RegistrationPolicy, policyProblems } from './registration-policy.js';
import {
  type ClientMetadata,
  ClientMetadataPatchSchema,
  type ClientMetadataPatch,
} from '../records/client.js';
import { ClientRecordError, newClientMetadata } from '../records/client-changes.js';

/** RFC 7591 §3.2.2. Not RFC 6749 codes: the registration endpoint answers them itself. */
export type RegistrationErrorCode = 'invalid_redirect_uri' | 'invalid_client_metadata';

export class RegistrationError extends Error {
  override name = 'RegistrationError';

  constructor(
    readonly code: RegistrationErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  toJSON(): { error: RegistrationErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

const invalidMetadata = (description: string) => new RegistrationError('invalid_client_metadata', description);

/** What this server serves, so that a client registers only what it can use. */
export interface RegistrationCapabilities {
  grantTypes: readonly string[];
  clientAuthMethods: readonly string[];
}

/**
 * The metadata a client may register for itself (RFC 7591 §2, OIDC RP-Initiated Logout §3.1,
 * RFC 8705 §2.1.2 and §3.4, OIDC Dynamic Registration §2 (with `subject_type` and `sector_identifier_uri`), RFC 9126 §6, RFC 9101 §10.5, RFC 9701 §6), checked by the same
 * rules as an admin's. Other fields are ignored (RFC 7591 §2): `client_id` (generated),
 * `client_type` (follows from the auth method) and `require_pkce` keep their defaults, or on an
 * update their current values. The privileged fields (PRIVILEGED_FIELDS) are refused when they
 * ask for more than the client has. `grant_types` and `scope` are bounded by the realm's
 * registration policy (src/clients/registration-policy.ts).
 */
const RegistrableSchema = ClientMetadataPatchSchema.pick({
  client_name: true,
  redirect_uris: true,
  post_logout_redirect_uris: true,
  scope: true,
  grant_types: true,
  token_endpoint_auth_method: true,
  jwks: true,
  jwks_uri: true,
  tls_client_auth_subject_dn: true,
  tls_client_certificate_bound_access_tokens: true,
  id_token_signed_response_alg: true,
  authorization_signed_response_alg: true,
  introspection_signed_response_alg: true,
  require_signed_request_object: true,
  backchannel_logout_uri: true,
  backchannel_logout_session_required: true,
  frontchannel_logout_uri: true,
  frontchannel_logout_session_required: true,
  backchannel_token_delivery_mode: true,
  backchannel_client_notification_endpoint: true,
  subject_type: true,
  sector_identifier_uri: true,
  authorization_details_types: true,
}).extend({
  response_types: z.array(z.string().max(100)).max(10).optional(),
  require_pushed_authorization_requests: z.boolean().optional(),
});
type Registrable = z.output<typeof RegistrableSchema>;
const REGISTRABLE_FIELDS = Object.keys(RegistrableSchema.shape);

const REDIRECT_FIELDS: ReadonlySet<PropertyKey> = new Set(['redirect_uris', 'post_logout_redirect_uris']);

/** Metadata an admin sets on a client and self-registration never changes. */
type AdminControlled = Pick<
  ClientMetadata,
  'skip_consent' | 'introspect_any_token' | 'require_pkce' | 'allowed_audiences' | 'roles' | 'journey' | 'logo_uri' | 'client_names' | 'id_jag_audiences' | 'transaction_token_service'
>;

/**
 * Fields that give a client power over people or other clients' tokens: consent skipped,
 * introspection of any token, audiences beyond the realm's resources. Only an admin sets them;
 * a client that asks for more than it has is refused (RFC 7591 §3.2.2), one that sends what it
 * has, or less, keeps what it has.
 */
const PRIVILEGED_FIELDS = ['skip_consent', 'introspect_any_token', 'allowed_audiences', 'id_jag_audiences', 'transaction_token_service'] as const;

function asksForPrivilege(field: (typeof PRIVILEGED_FIELDS)[number], value: unknown, current: AdminControlled | undefined): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (field === 'allowed_audiences') {
    const held = current?.allowed_audiences ?? [];
    return !Array.isArray(value) || value.some((audience) => !held.includes(audience as string));
  }
  if (field === 'id_jag_audiences') {
    // Authorization servers of other trust domains that the client may obtain ID-JAGs for (CONTRACT.md §15): each entry as held.
    const held = (current?.id_jag_audiences ?? []).map((entry) => JSON.stringify(entry));
    return !Array.isArray(value) || value.some((entry) => !held.includes(JSON.stringify(entry)));
  }
  return !(value === true && current?.[field] === true);
}

/**
 * The client record that a registration (RFC 7591 §3.1) or a full update (RFC 7592 §2.2)
 * asks for: omitted or null fields take their defaults, `current` keeps what an admin set.
 * Throws a RegistrationError naming every problem, asking beyond `policy` included.
 */
export function registeredRecord(body: unknown, server: RegistrationCapabilities, policy: RegistrationPolicy, current?: AdminControlled): ClientMetadata {
  const requested = parseRegistrable(body);
  const named = registeredNames(body as Record<string, unknown>);
  if (named.problems.length > 0) throw invalidMetadata(named.problems.join('; '));
  const privileged = PRIVILEGED_FIELDS.filter((field) => asksForPrivilege(field, (body as Record<string, unknown>)[field], current));
  if (privileged.length > 0) throw invalidMetadata(privileged.map((field) => `${field}: only an administrator may set it`).join('; '));
  const grantTypes = requested.grant_types ?? ['authorization_code']; // RFC 7591 §2
  const method = requested.token_endpoint_auth_method ?? 'client_secret_basic'; // RFC 7591 §2

  const unserved = grantTypes.filter((grant) => !server.grantTypes.includes(grant));
  if (unserved.length > 0) throw invalidMetadata(`grant_types: not served here: ${unserved.join(' ')}`);
  if (!server.clientAuthMethods.includes(method)) throw invalidMetadata(`token_endpoint_auth_method: not served here: ${method}`);
  checkResponseTypes(requested.response_types, grantTypes);
  if (grantTypes.includes('authorization_code') && (requested.redirect_uris ?? []).length === 0) {
    throw new RegistrationError('invalid_redirect_uri', 'redirect_uris: at least one is required for authorization_code');
  }
  const beyondPolicy = policyProblems({ grant_types: grantTypes, scope: requested.scope ?? '', authorization_details_types: requested.authorization_details_types }, policy);
  if (beyondPolicy.length > 0) throw invalidMetadata(beyondPolicy.join('; '));

  const clientType = method === 'none' ? 'public' : 'confidential';
  const { response_types: _responseTypes, require_pushed_authorization_requests: requirePar, ...fields } = requested;
  const record: ClientMetadataPatch = {
    ...fields,
    client_type: clientType,
    grant_types: grantTypes,
    token_endpoint_auth_method: method,
    require_par: requirePar ?? false,
    skip_consent: current?.skip_consent ?? false,
    // An admin's grant of introspection does not survive a change to a public client, which cannot introspect.
    introspect_any_token: clientType === 'confidential' && (current?.introspect_any_token ?? false),
    require_pkce: current?.require_pkce ?? false,
    allowed_audiences: current?.allowed_audiences ?? [],
    // So are the agent privileges of CONTRACT.md §15; a public client has none.
    ...(current?.id_jag_audiences === undefined || clientType === 'public' ? {} : { id_jag_audiences: current.id_jag_audiences }),
    ...(current?.transaction_token_service === undefined || clientType === 'public' ? {} : { transaction_token_service: current.transaction_token_service }),
    // Roles are an admin's (CONTRACT.md §14): never asked for, never lost by a client's own update.
    ...(current?.roles === undefined ? {} : { roles: current.roles }),
    // The journey an admin set stays: a client cannot choose how people sign in to it.
    ...(current?.journey === undefined ? {} : { journey: current.journey }),
    // So does the logo: a client cannot put an image of its choosing on the realm's pages.
    ...(current?.logo_uri === undefined ? {} : { logo_uri: current.logo_uri }),
    // Its names in other languages (`client_name#de`): those the body gives replace them all; a
    // body that gives none keeps what the client or an admin set.
    ...(named.names !== undefined ? { client_names: named.names } : current?.client_names === undefined ? {} : { client_names: current.client_names }),
  };
  try {
    return newClientMetadata(record);
  } catch (error) {
    if (error instanceof ClientRecordError) throw invalidMetadata(error.message);
    throw error;
  }
}

function parseRegistrable(body: unknown): Registrable {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidMetadata('the body must be a JSON object');
  if (nestsDeeperThan(body)) throw invalidMetadata(`the metadata nests deeper than ${MAX_JSON_DEPTH} levels`);
  // RFC 7592 §2.2: a null value asks for the field's deletion, that is its default.
  const known = Object.fromEntries(
    Object.entries(body).filter(([field, value]) => REGISTRABLE_FIELDS.includes(field) && value !== null),
  );
  const result = RegistrableSchema.safeParse(known);
  if (result.success) {
    // PostgreSQL cannot store U+0000 in text or jsonb, and it means nothing in metadata.
    if (JSON.stringify(result.data).includes('\\u0000')) throw invalidMetadata('the metadata must not contain NUL characters');
    return result.data;
  }
  const issues = result.error.issues;
  const code = issues.some((issue) => REDIRECT_FIELDS.has(issue.path[0] ?? '')) ? 'invalid_redirect_uri' : 'invalid_client_metadata';
  throw new RegistrationError(code, briefProblems(issues));
}

/**
 * Only the code flow is served at /authorize. RFC 7591 §2.1: `code` goes with the
 * authorization_code grant, each way. When response_types is omitted it follows from the
 * grants (RFC 7591 §2 defaults it to `code`, which would make a client_credentials client
 * inconsistent with its own defaults).
 */
function checkResponseTypes(responseTypes: readonly string[] | undefined, grantTypes: readonly string[]): void {
  if (responseTypes === undefined) return;
  const other = responseTypes.filter((type) => type !== 'code');
  if (other.length > 0) throw invalidMetadata('response_types: only "code" is served');
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code')) {
    throw invalidMetadata('response_types "code" and grant_types "authorization_code" go together (RFC 7591 §2.1)');
  }
}

/** The registered metadata under RFC 7591 names, as registration, read and update answer it. */
export function registrationView(record: ClientMetadata) {
  return {
    ...(record.client_name ? { client_name: record.client_name } : {}),
    ...registrationNamesView(record.client_names),
    redirect_uris: record.redirect_uris,
    post_logout_redirect_uris: record.post_logout_redirect_uris,
    grant_types: record.grant_types,
    response_types: record.grant_types.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: record.token_endpoint_auth_method,
    ...(record.scope ? { scope: record.scope } : {}),
    ...(record.jwks ? { jwks: record.jwks } : {}),
    ...(record.jwks_uri ? { jwks_uri: record.jwks_uri } : {}),
    ...(record.tls_client_auth_subject_dn ? { tls_client_auth_subject_dn: record.tls_client_auth_subject_dn } : {}),
    tls_client_certificate_bound_access_tokens: record.tls_client_certificate_bound_access_tokens,
    id_token_signed_response_alg: record.id_token_signed_response_alg,
    ...(record.authorization_signed_response_alg ? { authorization_signed_response_alg: record.authorization_signed_response_alg } : {}),
    introspection_signed_response_alg: record.introspection_signed_response_alg ?? 'RS256',
    require_pushed_authorization_requests: record.require_par,
    // RFC 9101 §10.5: false when absent.
    ...(record.require_signed_request_object ? { require_signed_request_object: true } : {}),
    ...(record.backchannel_logout_uri ? { backchannel_logout_uri: record.backchannel_logout_uri } : {}),
    ...(record.backchannel_logout_session_required ? { backchannel_logout_session_required: true } : {}),
    ...(record.frontchannel_logout_uri ? { frontchannel_logout_uri: record.frontchannel_logout_uri } : {}),
    ...(record.frontchannel_logout_session_required ? { frontchannel_logout_session_required: true } : {}),
    ...(record.backchannel_token_delivery_mode ? { backchannel_token_delivery_mode: record.backchannel_token_delivery_mode } : {}),
    ...(record.backchannel_client_notification_endpoint ? { backchannel_client_notification_endpoint: record.backchannel_client_notification_endpoint } : {}),
    ...(record.subject_type ? { subject_type: record.subject_type } : {}),
    ...(record.sector_identifier_uri ? { sector_identifier_uri: record.sector_identifier_uri } : {}),
    ...(record.authorization_details_types?.length ? { authorization_details_types: record.authorization_details_types } : {}),
  };
}

const LOOKUP_TIMEOUT_MS = 3_000;

/**
 * A self-registered `jwks_uri` is fetched by this server (src/client-auth/client-jwks.ts), so
 * it must not lead into the server's own network (SSRF): https, and a host the outbound
 * fetcher's guard admits (a public address, a name that resolves only to public addresses
 * now, or what `OUTBOUND_ALLOW` lists). This only refuses early and clearly: the fetcher judges
 * the address again when it connects (DNS rebinding). An admin-set `jwks_uri` is not checked.
 */
export async function checkJwksUriTarget(jwksUri: string, outbound: Pick<OutboundFetcher, 'admits'>): Promise<void> {
  const url = new URL(jwksUri); // the record's schema has parsed it already
  if (url.protocol !== 'https:') throw invalidMetadata('jwks_uri: must be an https URL');
  let verdict: Awaited<ReturnType<OutboundFetcher['admits']>>;
  try {
    verdict = await withTimeout(outbound.admits(url), LOOKUP_TIMEOUT_MS);
  } catch {
    verdict = 'unresolved';
  }
  if (verdict === 'unresolved') throw invalidMetadata('jwks_uri: the host name does not resolve');
  if (verdict === 'refused') throw invalidMetadata('jwks_uri: must not point at a loopback, private, link-local or otherwise internal address');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
