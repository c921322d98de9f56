import type { ClientMetadata } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { RealmSettings } from '../records/realm-settings.js';
import type { AuthorizationParams } from '../requests/authorization-request.js';

/**
 * The FAPI 2.0 Security Profile (final, February 2025), applied to a realm whose setting
 * `profile` is "fapi2" (CONTRACT.md §11). Each refusal names the rule it enforces, so that a
 * client's developer reads which clause was broken; docs/fapi2.md maps the clauses to this
 * module and its tests. The endpoints call these checks; with any other profile they do nothing.
 */

type Realm = { readonly settings: Pick<RealmSettings, 'profile'> };

export const isFapi2 = (realm: Realm): boolean => realm.settings.profile === 'fapi2';

/** §5.3.2.1: MTLS (RFC 8705 §2) or `private_key_jwt` (OIDC Core §9), nothing else. */
const FAPI2_AUTH_METHODS: readonly string[] = ['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'];
/** §5.3.2.2: authorization codes live at most 60 seconds. */
const FAPI2_MAX_CODE_LIFETIME = 60;
/** §5.3.2.2: a pushed request's `expires_in` is under 600 seconds. */
const FAPI2_MAX_PAR_LIFETIME = 599;
const PASSWORD_GRANT = 'password';

const refused = (code: 'invalid_request' | 'invalid_client' | 'unsupported_response_type' | 'unsupported_grant_type', rule: string): OAuthError =>
  new OAuthError(code, `FAPI 2.0 ${rule}`);

const AUTH_METHODS_RULE = 'requires client authentication with private_key_jwt or mutual TLS (tls_client_auth, self_signed_tls_client_auth)';
const CONFIDENTIAL_RULE = 'allows confidential clients only';
const PASSWORD_RULE = 'forbids the resource owner password credentials grant';

/** The realm's `code_lifetime`, capped at 60 seconds in a FAPI 2.0 realm. */
export const codeLifetime = (settings: Pick<RealmSettings, 'profile' | 'code_lifetime'>): number =>
  settings.profile === 'fapi2' ? Math.min(settings.code_lifetime, FAPI2_MAX_CODE_LIFETIME) : settings.code_lifetime;

/** The realm's `par_lifetime`, kept under 600 seconds in a FAPI 2.0 realm. */
export const parLifetime = (settings: Pick<RealmSettings, 'profile' | 'par_lifetime'>): number =>
  settings.profile === 'fapi2' ? Math.min(settings.par_lifetime, FAPI2_MAX_PAR_LIFETIME) : settings.par_lifetime;

/**
 * §5.3.2.1: no refresh token rotation (but in extraordinary circumstances): the realm's
 * `rotate_refresh_tokens` is set aside, so that a client that lost a response retries with the
 * same refresh token. Its clients are confidential, which binds the token to them.
 */
export const rotatesRefreshTokens = (settings: Pick<RealmSettings, 'profile' | 'rotate_refresh_tokens'>): boolean =>
  settings.profile !== 'fapi2' && settings.rotate_refresh_tokens;

/**
 * What a client record of a FAPI 2.0 realm must not hold, as `field: problem` (the admin API's
 * and registration's shape). A realm switched to the profile keeps such clients, but the
 * endpoints refuse them (`checkClient`).
 */
export function clientRecordProblems(realm: Realm, record: Pick<ClientMetadata, 'client_type' | 'token_endpoint_auth_method' | 'grant_types'>): string[] {
  if (!isFapi2(realm)) return [];
  const problems: string[] = [];
  if (record.client_type === 'public') problems.push(`client_type: FAPI 2.0 ${CONFIDENTIAL_RULE}`);
  else if (!FAPI2_AUTH_METHODS.includes(record.token_endpoint_auth_method)) {
    problems.push(`token_endpoint_auth_method: FAPI 2.0 ${AUTH_METHODS_RULE}`);
  }
  if (record.grant_types.includes(PASSWORD_GRANT)) problems.push(`grant_types: FAPI 2.0 ${PASSWORD_RULE}`);
  return problems;
}

/** §5.3.2.1 (confidential clients only, by private_key_jwt or MTLS), at PAR and the token endpoint: the client that authenticated. */
export function checkClient(realm: Realm, client: Pick<ClientMetadata, 'client_type' | 'token_endpoint_auth_method'>): void {
  if (!isFapi2(realm)) return;
  if (client.client_type === 'public') throw refused('invalid_client', CONFIDENTIAL_RULE);
  if (!FAPI2_AUTH_METHODS.includes(client.token_endpoint_auth_method)) throw refused('invalid_client', AUTH_METHODS_RULE);
}

/** §5.3.2.2: /authorize serves only requests pushed to /par. */
export function checkPushed(realm: Realm): void {
  if (isFapi2(realm)) throw refused('invalid_request', 'requires PAR (pushed authorization requests): send the request to /par and its request_uri to /authorize');
}

/**
 * §5.3.2.2, at /par before the request's own validation: response type `code`,
 * a redirect URI named in the pushed request, and PKCE with S256.
 */
export function checkPushedRequest(realm: Realm, params: AuthorizationParams): void {
  if (!isFapi2(realm)) return;
  if (params.response_type !== undefined && params.response_type !== 'code') {
    throw refused('unsupported_response_type', 'allows response_type=code only');
  }
  if (params.redirect_uri === undefined) throw refused('invalid_request', 'requires redirect_uri in the pushed authorization request');
  if (params.code_challenge === undefined) throw refused('invalid_request', 'requires PKCE with S256 (code_challenge)');
  if (params.code_challenge_method !== 'S256') {
    throw refused('invalid_request', 'requires PKCE with code_challenge_method=S256 (plain, or no method, is refused)');
  }
}

/**
 * At the token endpoint, once the client is authenticated and any DPoP proof checked (§5.3.2.1):
 * the client as above, no password grant, and a sender-constrained access token: by the
 * request's DPoP proof, or by the client's certificate when the client registered for
 * certificate-bound tokens (whose absence the endpoint refuses on its own, RFC 8705 §3).
 */
export function checkTokenRequest(
  realm: Realm,
  client: Pick<ClientMetadata, 'client_type' | 'token_endpoint_auth_method' | 'tls_client_certificate_bound_access_tokens'>,
  grantType: string,
  dpopProof: boolean,
): void {
  if (!isFapi2(realm)) return;
  checkClient(realm, client);
  if (grantType === PASSWORD_GRANT) throw refused('unsupported_grant_type', PASSWORD_RULE);
  if (!dpopProof && !client.tls_client_certificate_bound_access_tokens) {
    throw refused(
      'invalid_request',
      'requires sender-constrained access tokens: send a DPoP proof, or register the client for mutual-TLS certificate-bound tokens (tls_client_certificate_bound_access_tokens)',
    );
  }
}

/** Authorization server metadata of a FAPI 2.0 realm: what the profile leaves of the server's capabilities. */
export function profiledMetadata<M extends Record<string, unknown>>(realm: Realm, metadata: M): M {
  if (!isFapi2(realm)) return metadata;
  const fapiMethods = (name: string) => {
    const methods = metadata[name];
    return Array.isArray(methods) ? { [name]: methods.filter((method) => FAPI2_AUTH_METHODS.includes(method as string)) } : {};
  };
  const grantTypes = metadata.grant_types_supported;
  return {
    ...metadata,
    require_pushed_authorization_requests: true,
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
    ...(Array.isArray(grantTypes) ? { grant_types_supported: grantTypes.filter((type) => type !== PASSWORD_GRANT) } : {}),
    ...fapiMethods('token_endpoint_auth_methods_supported'),
    ...fapiMethods('pushed_authorization_request_endpoint_auth_methods_supported'),
    ...fapiMethods('revocation_endpoint_auth_methods_supported'),
    ...fapiMethods('introspection_endpoint_auth_methods_supported'),
  };
}
