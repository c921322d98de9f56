import { OAuthError } from '../errors.js';
import { formParamLists, formParams } from '../http/form-params.js';
import { parseUiLocales } from '../records/locales.js';
import { isResourceIdentifier } from '../resources/identifier.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { AuthorizationRequest, Prompt, ResponseMode } from '../records/authorization-request.js';
import { essentialAcrValues, parseClaimsRequest } from './claims-request.js';
import type { ClaimsRequest } from '../records/claims-parameter.js';
import { namedBriefly, requestedScope } from '../records/scope.js';
import { selectJourney } from '../authn/journeys/select.js';
import { requestedAuthorizationDetails } from '../authorization-details/requested.js';

export const RESPONSE_MODES = ['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt'] as const;

/**
 * The parameters /authorize and /par read; others are ignored. A signed `request` object
 * replaces the others (src/requests/request-object.ts).
 */
export const AUTHORIZATION_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'dpop_jkt',
  'prompt',
  'max_age',
  'login_hint',
  'acr_values',
  'ui_locales',
  'response_mode',
  'claims',
  'authorization_details',
  'request',
  'request_uri',
] as const;
export type AuthorizationParams = Readonly<Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>>> & {
  /** RFC 8707 §2.1: the one parameter that may repeat. */
  readonly resource?: readonly string[];
};

/** The authorization parameters of a query or form: each once, but `resource`, which may repeat. */
export function authorizationForm(input: unknown): AuthorizationParams {
  return { ...formParams(input, AUTHORIZATION_PARAMETERS), ...formParamLists(input, ['resource']) };
}

/**
 * The client or its redirect URI cannot be trusted: the error is shown to the person and
 * never sent to the redirect URI (RFC 6749 §4.1.2.1).
 */
export class UntrustedRedirectError extends Error {
  override name = 'UntrustedRedirectError';
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters; an S256 challenge is 43. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
/** RFC 7638 SHA-256 thumbprint, base64url: 43 characters. */
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
const MAX_VALUE_LENGTH = 2048;
/** RFC 9396: a few entries of structured data (a payment, its accounts) need more room. */
const MAX_DETAILS_LENGTH = 8192;
const PROMPTS = new Map<string, Prompt>([
  ['none', 'none'],
  ['login', 'login'],
  ['consent', 'consent'],
  ['select_account', 'login'],
  ['create', 'create'],
]);

/**
 * The redirect URI of the request: registered exactly (no wildcard, no prefix), or
 * omitted when the client has exactly one.
 */
export function trustedRedirectUri(client: Client, given: string | undefined): { redirectUri: string; given: boolean } {
  if (given === undefined) {
    if (client.redirect_uris.length !== 1) throw new UntrustedRedirectError('redirect_uri is required: the client has several');
    return { redirectUri: client.redirect_uris[0]!, given: false };
  }
  if (!client.redirect_uris.includes(given)) throw new UntrustedRedirectError('redirect_uri is not registered for this client');
  return { redirectUri: given, given: true };
}

/**
 * Everything after the redirect URI, in the order of the issue: response type, scope,
 * PKCE, then the OpenID Connect parameters. Each problem is an OAuthError to be sent to
 * the (trusted) redirect URI.
 */
export function validateAuthorizationRequest(
  realm: RequestRealm,
  client: Client,
  params: AuthorizationParams,
  redirect: { redirectUri: string; given: boolean },
): AuthorizationRequest {
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = params[name] ?? '';
    if (value.length > (name === 'authorization_details' ? MAX_DETAILS_LENGTH : MAX_VALUE_LENGTH)) throw new OAuthError('invalid_request', `${name} is too long`);
    // The request is stored (jsonb), which cannot hold NUL; no parameter has a use for one.
    if (value.includes('\0')) throw new OAuthError('invalid_request', `${name} holds a NUL character`);
  }
  if (!client.grant_types.includes('authorization_code')) {
    throw new OAuthError('unauthorized_client', 'the client is not allowed the authorization code grant');
  }
  const responseType = params.response_type;
  if (responseType === undefined) throw new OAuthError('invalid_request', 'response_type is required');
  if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'only response_type=code is supported');
  const responseMode = parseResponseMode(params.response_mode);

  const scope = requestedScope(params.scope, client.scope);

  const method = params.code_challenge_method;
  if (params.code_challenge === undefined) {
    if (method !== undefined) throw new OAuthError('invalid_request', 'code_challenge_method without code_challenge');
    if (client.client_type === 'public') throw new OAuthError('invalid_request', 'PKCE is required for public clients (code_challenge)');
    if (realm.settings.require_pkce || client.require_pkce) throw new OAuthError('invalid_request', 'PKCE is required (code_challenge)');
  } else {
    // RFC 7636 §4.3: an absent method means plain, which is refused (RFC 9700 §2.1.1).
    if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    if (!CODE_CHALLENGE.test(params.code_challenge)) throw new OAuthError('invalid_request', 'code_challenge is malformed');
  }

  if (params.dpop_jkt !== undefined && !JWK_THUMBPRINT.test(params.dpop_jkt)) {
    throw new OAuthError('invalid_request', 'dpop_jkt must be a JWK SHA-256 thumbprint (RFC 7638, base64url)');
  }

  const prompt = parsePrompt(params.prompt);
  // CONTRACT.md §12: a realm where nobody may register cannot begin with registration.
  if (prompt.includes('create') && !realm.settings.self_registration) {
    throw new OAuthError('invalid_request', 'prompt=create: this realm does not offer registration');
  }
  let maxAge: number | undefined;
  if (params.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(params.max_age)) throw new OAuthError('invalid_request', 'max_age must be a whole number of seconds');
    maxAge = Number(params.max_age);
  }

  // Tags the server does not know are not an error (OIDC Core §3.1.2.1): they ask for nothing.
  const uiLocales = parseUiLocales(params.ui_locales);

  const claims = parseClaimsRequest(params.claims);
  const acrValues = acrValuesOf(realm, client, params.acr_values, claims);

  const authorizationDetails = requestedAuthorizationDetails(params.authorization_details, realm.settings, client);

  // RFC 8707 §2: whether each is a resource of the realm or allowed to the client is checked against the store (src/resources/targets.ts).
  const resource = params.resource === undefined || params.resource.length === 0 ? undefined : [...new Set(params.resource)];
  if (resource?.some((value) => !isResourceIdentifier(value))) {
    throw new OAuthError('invalid_target', 'each resource must be an absolute URI without a fragment');
  }

  return {
    clientId: client.client_id,
    redirectUri: redirect.redirectUri,
    redirectUriGiven: redirect.given,
    scope,
    prompt,
    ...(params.state === undefined ? {} : { state: params.state }),
    ...(params.nonce === undefined ? {} : { nonce: params.nonce }),
    ...(params.code_challenge === undefined ? {} : { codeChallenge: params.code_challenge }),
    ...(params.dpop_jkt === undefined ? {} : { dpopJkt: params.dpop_jkt }),
    ...(maxAge === undefined ? {} : { maxAge }),
    ...(params.login_hint === undefined ? {} : { loginHint: params.login_hint }),
    ...(acrValues === undefined ? {} : { acrValues }),
    ...(uiLocales === undefined ? {} : { uiLocales }),
    ...(resource === undefined ? {} : { resource }),
    ...(responseMode === 'query' ? {} : { responseMode }),
    ...(claims === undefined ? {} : { claims }),
    ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
  };
}

/**
 * The acr values that choose the journey (CONTRACT.md §8, §13): those `claims` asks for as
 * essential first, then `acr_values`. OIDC Core §5.5.1.1: an essential acr that no journey of
 * the realm gives (the client's own, else the one mapped) cannot be met, and the request fails.
 */
function acrValuesOf(realm: RequestRealm, client: Client, acrValues: string | undefined, claims: ClaimsRequest | undefined): string[] | undefined {
  const voluntary = acrValues?.split(' ').filter(Boolean).slice(0, 20);
  const essential = essentialAcrValues(claims);
  if (essential === undefined) return voluntary;
  const selected = selectJourney(realm, { clientJourney: client.journey, acrValues: essential });
  if (selected && !essential.includes(selected.acr)) {
    throw new OAuthError('access_denied', 'no sign-in of this realm gives the acr asked for as essential');
  }
  return [...new Set([...essential, ...(voluntary ?? [])])];
}

/** The response mode a request asks for; one this server does not serve is invalid_request. */
export function parseResponseMode(value: string | undefined): ResponseMode {
  if (value === undefined) return 'query';
  if (value === 'jwt') return 'query.jwt';
  if (!(RESPONSE_MODES as readonly string[]).includes(value)) {
    throw new OAuthError('invalid_request', `response_mode must be one of ${RESPONSE_MODES.join(', ')}`);
  }
  return value as ResponseMode;
}

/**
 * The response mode an error about the request goes back in: the one asked for when it is
 * one this server serves, else `query` (an unknown mode is itself the error).
 */
export function responseModeForError(value: unknown): ResponseMode {
  try {
    return parseResponseMode(typeof value === 'string' && value !== '' ? value : undefined);
  } catch {
    return 'query';
  }
}

function parsePrompt(value: string | undefined): Prompt[] {
  if (value === undefined) return [];
  const prompts = new Set<Prompt>();
  for (const name of value.split(' ').filter(Boolean)) {
    const prompt = PROMPTS.get(name);
    if (!prompt) throw new OAuthError('invalid_request', `prompt=${namedBriefly([name])} is not supported`);
    prompts.add(prompt);
  }
  // OIDC Core §3.1.2.1: none with any other value is an error.
  if (prompts.has('none') && prompts.size > 1) throw new OAuthError('invalid_request', 'prompt=none cannot be combined');
  return [...prompts];
}
