import { CLEARABLE, CLEARABLE_URIS, type ClientMetadata, type ClientMetadataPatch } from './client.js';
import { pairwiseSectorProblems } from './client-subject.js';

/*
 * A client's metadata made and changed: the defaults of a new client, a patch merged over a
 * record, and the rules between fields that every result keeps.
 */

function defaultsFor(type: ClientMetadata['client_type']): ClientMetadata {
  return {
    client_type: type,
    client_name: '',
    redirect_uris: [],
    post_logout_redirect_uris: [],
    scope: '',
    grant_types: ['authorization_code'], // RFC 7591 §2
    token_endpoint_auth_method: type === 'public' ? 'none' : 'client_secret_basic',
    require_pkce: false,
    require_par: false,
    require_signed_request_object: false,
    skip_consent: false,
    tls_client_certificate_bound_access_tokens: false,
    introspect_any_token: false,
    id_token_signed_response_alg: 'RS256',
    authorization_signed_response_alg: 'RS256',
    introspection_signed_response_alg: 'RS256',
    allowed_audiences: [],
  };
}

/** Rules between fields; each problem names its field. */
function consistencyProblems(m: ClientMetadata): Array<{ field: keyof ClientMetadata; message: string }> {
  const problems: Array<{ field: keyof ClientMetadata; message: string }> = [];
  const isPublic = m.client_type === 'public';
  if (isPublic !== (m.token_endpoint_auth_method === 'none')) {
    problems.push({
      field: 'token_endpoint_auth_method',
      message: isPublic ? 'a public client authenticates with "none"' : 'a confidential client cannot use "none"',
    });
  }
  if (isPublic && m.grant_types.includes('client_credentials')) {
    problems.push({ field: 'grant_types', message: 'client_credentials is for confidential clients only (RFC 6749 §4.4)' });
  }
  if (isPublic && m.introspect_any_token) {
    problems.push({ field: 'introspect_any_token', message: 'public clients cannot introspect' });
  }
  if (isPublic && (m.id_jag_audiences?.length ?? 0) > 0) {
    problems.push({ field: 'id_jag_audiences', message: 'token exchange is for confidential clients only' });
  }
  if (isPublic && m.transaction_token_service) {
    problems.push({ field: 'transaction_token_service', message: 'token exchange is for confidential clients only' });
  }
  if (m.grant_types.includes('authorization_code') && m.redirect_uris.length === 0) {
    problems.push({ field: 'redirect_uris', message: 'at least one is required for authorization_code' });
  }
  if (m.jwks && m.jwks_uri) problems.push({ field: 'jwks_uri', message: 'give jwks or jwks_uri, not both' });
  const needsKeys = m.token_endpoint_auth_method === 'private_key_jwt' || m.token_endpoint_auth_method === 'self_signed_tls_client_auth';
  if (needsKeys && !m.jwks && !m.jwks_uri) {
    problems.push({ field: 'jwks', message: `${m.token_endpoint_auth_method} needs jwks or jwks_uri` });
  }
  if (m.require_signed_request_object && !m.jwks && !m.jwks_uri) {
    problems.push({ field: 'jwks', message: 'require_signed_request_object needs jwks or jwks_uri: the keys that verify its request objects' });
  }
  const notified = m.backchannel_token_delivery_mode === 'ping' || m.backchannel_token_delivery_mode === 'push';
  if (notified && !m.backchannel_client_notification_endpoint) {
    problems.push({ field: 'backchannel_client_notification_endpoint', message: `${m.backchannel_token_delivery_mode} mode needs it (CIBA Core §4)` });
  }
  if (m.token_endpoint_auth_method === 'tls_client_auth' && !m.tls_client_auth_subject_dn) {
    problems.push({ field: 'tls_client_auth_subject_dn', message: 'tls_client_auth needs it' });
  }
  problems.push(...pairwiseSectorProblems(m));
  return problems;
}

function merge(base: ClientMetadata, patch: ClientMetadataPatch): ClientMetadata {
  const merged = { ...base } as Record<string, unknown>;
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null && [...CLEARABLE, ...CLEARABLE_URIS].includes(field as never)) delete merged[field];
    else merged[field] = value;
  }
  return merged as unknown as ClientMetadata;
}

export class ClientRecordError extends Error {
  override name = 'ClientRecordError';
}

function checked(metadata: ClientMetadata): ClientMetadata {
  const problems = consistencyProblems(metadata);
  if (problems.length > 0) throw new ClientRecordError(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
  return metadata;
}

/** The full metadata of a new client: what was sent, defaults for the rest, fields consistent. */
export function newClientMetadata(input: ClientMetadataPatch): ClientMetadata {
  return checked(merge(defaultsFor(input.client_type ?? 'confidential'), input));
}

/** PATCH merges: only the fields sent change. A change of type brings that type's default auth method. */
export function patchClientMetadata(current: ClientMetadata, patch: ClientMetadataPatch): ClientMetadata {
  const merged = merge(current, patch);
  if (patch.client_type && patch.client_type !== current.client_type && !patch.token_endpoint_auth_method) {
    merged.token_endpoint_auth_method = defaultsFor(patch.client_type).token_endpoint_auth_method;
  }
  return checked(merged);
}
