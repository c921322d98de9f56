import type { FastifyPluginAsync } from 'fastify';
import { acrValuesOf } from '../authn/journeys/select.js';
import { SIGNED_JWT_ALGS } from '../assertions/signed-jwt.js';
import { DPOP_SIGNING_ALGS } from '../dpop/algorithms.js';
import { profiledMetadata } from '../profiles/fapi2.js';
import type { RequestRealm } from '../records/realm.js';
import { RESPONSE_MODES } from '../requests/authorization-request.js';
import type { ScopeStore } from '../store/scopes.js';
import { SIGNING_ALGS } from '../records/signing-key.js';
import { BACKCHANNEL_TOKEN_DELIVERY_MODES } from '../records/client.js';
import { ID_JAG_TOKEN_TYPE } from '../grants/id-jag-issuance.js';

export interface ServerCapabilities {
  grantTypes: readonly string[];
  clientAuthMethods: readonly string[];
}

/** The claims that scopes release (src/tokens/claims.ts) and those ID tokens carry. */
const CLAIMS_SUPPORTED = [
  'sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'amr', 'acr', 'sid',
  'name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture',
  'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at', 'email', 'email_verified',
  'address', 'phone_number', 'phone_number_verified',
];

/**
 * Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery §3, RFC 9126 §5,
 * RFC 9207 §3, RFC 8628 §4, CIBA Core §4, RFC 9101 §10.1). It advertises only what this server has built.
 */
export function serverMetadata(realm: RequestRealm, scopes: readonly string[], capabilities: ServerCapabilities) {
  const issuer = realm.issuer;
  const confidentialMethods = capabilities.clientAuthMethods.filter((method) => method !== 'none');
  // RFC 8414 §2: the algorithms of private_key_jwt assertions, at each endpoint that takes them.
  const assertionAlgs = capabilities.clientAuthMethods.includes('private_key_jwt') ? [...SIGNED_JWT_ALGS] : undefined;
  const signingAlgs = (name: string) => (assertionAlgs ? { [name]: assertionAlgs } : {});
  // A realm of the FAPI 2.0 profile advertises what the profile leaves (src/profiles/fapi2.ts).
  return profiledMetadata(realm, {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/access_token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/connect/jwk_uri`,
    introspection_endpoint: `${issuer}/introspect`,
    revocation_endpoint: `${issuer}/token/revoke`,
    pushed_authorization_request_endpoint: `${issuer}/par`,
    registration_endpoint: `${issuer}/connect/register`, // RFC 7591 §3, RFC 8414 §2
    require_pushed_authorization_requests: realm.settings.require_par,
    // draft-ietf-oauth-client-id-metadata-document §5: a client_id URL names its client's document.
    ...(realm.settings.client_id_metadata_documents ? { client_id_metadata_document_supported: true } : {}),
    end_session_endpoint: `${issuer}/connect/endSession`,
    // OpenID Connect Back-Channel Logout 1.0 §2.1: logout tokens carry sid.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // Front-Channel Logout 1.0 §3: the end-session page frames each client's page with iss and sid.
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    // RFC 8628 §4.
    device_authorization_endpoint: `${issuer}/device/code`,
    // CIBA Core §4: poll mode only; request objects are signed as client assertions are.
    backchannel_authentication_endpoint: `${issuer}/bc-authorize`,
    backchannel_token_delivery_modes_supported: [...BACKCHANNEL_TOKEN_DELIVERY_MODES],
    backchannel_authentication_request_signing_alg_values_supported: [...SIGNED_JWT_ALGS],
    backchannel_user_code_parameter_supported: false,
    scopes_supported: scopes,
    claims_supported: CLAIMS_SUPPORTED,
    response_types_supported: ['code'],
    response_modes_supported: [...RESPONSE_MODES],
    // JARM §4: the realm keeps a current key of each (src/tokens/signing-keys.ts).
    authorization_signing_alg_values_supported: [...SIGNING_ALGS],
    grant_types_supported: capabilities.grantTypes,
    // draft-ietf-oauth-identity-assertion-authz-grant §6 (named by draft-ietf-oauth-identity-chaining): this realm issues ID-JAGs.
    identity_chaining_requested_token_types_supported: [ID_JAG_TOKEN_TYPE],
    code_challenge_methods_supported: ['S256'],
    subject_types_supported: ['public', 'pairwise'],
    acr_values_supported: acrValuesOf(realm),
    // The languages of the realm's pages (CONTRACT.md §10).
    ui_locales_supported: realm.settings.locales,
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    // Initiating User Registration via OpenID Connect 1.0 §4.2: `create` while the realm offers registration.
    prompt_values_supported: ['none', 'login', 'consent', 'select_account', ...(realm.settings.self_registration ? ['create'] : [])],
    authorization_response_iss_parameter_supported: true,
    // RFC 9101 §10.1: signed request objects by value at /authorize and /par, verified as client assertions are.
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...SIGNED_JWT_ALGS],
    request_uri_parameter_supported: false,
    claims_parameter_supported: true,
    // RFC 9396 §10: the realm's authorization details types.
    authorization_details_types_supported: Object.keys(realm.settings.authorization_details_types),
    // RFC 8705 §3.3: tokens are bound to the client certificate when the client asks for it.
    tls_client_certificate_bound_access_tokens: true,
    // RFC 9449 §5.1: DPoP proofs bind tokens at the token endpoint and PAR.
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    token_endpoint_auth_methods_supported: capabilities.clientAuthMethods,
    introspection_endpoint_auth_methods_supported: confidentialMethods,
    // RFC 9701 §7: the algorithms of JWT introspection responses (`introspection_signed_response_alg`).
    introspection_signing_alg_values_supported: [...SIGNING_ALGS],
    revocation_endpoint_auth_methods_supported: capabilities.clientAuthMethods,
    pushed_authorization_request_endpoint_auth_methods_supported: capabilities.clientAuthMethods,
    ...signingAlgs('token_endpoint_auth_signing_alg_values_supported'),
    ...signingAlgs('introspection_endpoint_auth_signing_alg_values_supported'),
    ...signingAlgs('revocation_endpoint_auth_signing_alg_values_supported'),
  });
}

export function discoveryEndpoint(deps: { scopes: ScopeStore; capabilities: ServerCapabilities }, path: string): FastifyPluginAsync {
  return async (app) => {
    app.get(path, async (request, reply) => {
      const scopes = await deps.scopes.list(request.realm.name);
      reply.header('cache-control', 'public, max-age=60');
      return serverMetadata(
        request.realm,
        scopes.map((scope) => scope.name),
        deps.capabilities,
      );
    });
  };
}
