import { userBySubject } from '../authn/user-by-subject.js';
import { CIBA_GRANT } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import type { User, UserStore } from '../store/users.js';
import { type RequestObjectDeps, requestObjectClaims } from './backchannel-request-object.js';
import { idTokenHintClaims } from './id-token-hint.js';
import { type LoginHintTokenDeps, loginHintTokenUser } from './login-hint-token.js';
import { requestedScope } from '../records/scope.js';

/**
 * The authentication request parameters of CIBA Core §7.1. `user_code` and `acr_values` are
 * read only to refuse them beside a request object: user codes are not supported (discovery says
 * so). `client_notification_token` is required of a client in ping or push mode, and ignored in poll mode.
 */
export const BACKCHANNEL_PARAMETERS = [
  'scope',
  'login_hint',
  'id_token_hint',
  'login_hint_token',
  'binding_message',
  'requested_expiry',
  'user_code',
  'acr_values',
  'client_notification_token',
] as const;
type BackchannelParameter = (typeof BACKCHANNEL_PARAMETERS)[number];

/** The form of /bc-authorize: the parameters, or a signed `request` holding them (§7.1.1). */
export const BACKCHANNEL_FORM_PARAMETERS = [...BACKCHANNEL_PARAMETERS, 'request'] as const;
export type BackchannelForm = Partial<Record<(typeof BACKCHANNEL_FORM_PARAMETERS)[number], string>>;

/** CIBA Core §7.1 suggests a short message, shown on both devices. */
export const MAX_BINDING_MESSAGE_LENGTH = 64;

export interface BackchannelRequest {
  scope: string[];
  user: User;
  bindingMessage?: string;
  /** Seconds: the realm's `ciba_lifetime`, or a shorter `requested_expiry`. */
  expiresIn: number;
  /** Ping and push modes (CIBA Core §10.2, §10.3): the Bearer token its notification carries. */
  notificationToken?: string;
}

/** CIBA Core §7.1: at most 1024 characters of RFC 6750 §2.1 `b64token`. */
const BEARER_CREDENTIALS = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_NOTIFICATION_TOKEN_LENGTH = 1024;

export interface BackchannelRequestDeps extends RequestObjectDeps, LoginHintTokenDeps {
  users: Pick<UserStore, 'get' | 'getById' | 'getByEmail'>;
  signingKeys: SigningKeyStore;
}

/** Parameter values as a form or a request object gives them (a request object may use a number for requested_expiry). */
type Parameters = Partial<Record<BackchannelParameter, string | number>>;

const invalid = (description: string): OAuthError => new OAuthError('invalid_request', description);

/**
 * Validates a backchannel authentication request (CIBA Core §7.1, §7.1.1, §13) of an
 * authenticated client; throws the OAuthError to answer.
 */
export async function validateBackchannelRequest(
  deps: BackchannelRequestDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  form: BackchannelForm,
): Promise<BackchannelRequest> {
  // A public client authenticates with `none`, which proves nothing: refused as not allowed to
  // use the grant (unauthorized_client) rather than as failed authentication (invalid_client),
  // since its credentials were the right ones for it and retrying them cannot help. CIBA Core §4
  // registers confidential clients only.
  if (client.client_type !== 'confidential') throw new OAuthError('unauthorized_client', 'CIBA is for confidential clients only');
  if (!client.grant_types.includes(CIBA_GRANT)) throw new OAuthError('unauthorized_client', `the client may not use the ${CIBA_GRANT} grant`);

  const params = form.request === undefined ? formParameters(form) : await signedParameters(deps, realm, client, endpointUrl, form);

  const scope = text(params, 'scope');
  if (scope === undefined) throw new OAuthError('invalid_scope', 'scope is required and must include openid');
  const names = requestedScope(scope, client.scope);
  if (!names.includes('openid')) throw new OAuthError('invalid_scope', 'scope must include openid');

  const hints = (['login_hint', 'id_token_hint', 'login_hint_token'] as const).filter((name) => params[name] !== undefined);
  if (hints.length !== 1) throw invalid('exactly one of login_hint, id_token_hint and login_hint_token is required');
  const bindingMessage = checkedBindingMessage(text(params, 'binding_message'));
  const mode = client.backchannel_token_delivery_mode ?? 'poll';
  const notificationToken = mode === 'poll' ? undefined : checkedNotificationToken(text(params, 'client_notification_token'), mode);
  const lifetime = realm.settings.ciba_lifetime;
  const requested = requestedExpiry(params.requested_expiry);
  const user = await hintedUser(deps, realm, client, endpointUrl, hints[0]!, text(params, hints[0]!)!);
  // CIBA Core §13: the OP denies a request for a person an admin disabled (CONTRACT.md §10).
  if (!user.enabled) throw new OAuthError('access_denied', 'the person the hint names is disabled');

  return {
    scope: names,
    user,
    ...(bindingMessage === undefined ? {} : { bindingMessage }),
    expiresIn: requested === undefined ? lifetime : Math.min(requested, lifetime),
    ...(notificationToken === undefined ? {} : { notificationToken }),
  };
}

/** CIBA Core §7.1 `client_notification_token`: required in ping and push modes, a Bearer credential of at most 1024 characters. */
function checkedNotificationToken(token: string | undefined, mode: string): string {
  if (token === undefined) throw invalid(`client_notification_token is required: the client is registered for ${mode} mode`);
  if (token.length > MAX_NOTIFICATION_TOKEN_LENGTH || !BEARER_CREDENTIALS.test(token)) {
    throw invalid(`client_notification_token must be a Bearer credential (RFC 6750 §2.1) of at most ${MAX_NOTIFICATION_TOKEN_LENGTH} characters`);
  }
  return token;
}

function formParameters(form: BackchannelForm): Parameters {
  const params: Parameters = {};
  for (const name of BACKCHANNEL_PARAMETERS) if (form[name] !== undefined) params[name] = form[name];
  return params;
}

/** CIBA Core §7.1.1: with a signed request, every parameter comes from it, none from the form. */
async function signedParameters(
  deps: BackchannelRequestDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  form: BackchannelForm,
): Promise<Parameters> {
  const outside = BACKCHANNEL_PARAMETERS.filter((name) => form[name] !== undefined);
  if (outside.length > 0) throw invalid(`with a request object, send ${outside.join(', ')} inside it only`);
  const claims = await requestObjectClaims(deps, realm, client, endpointUrl, form.request!);
  const params: Parameters = {};
  for (const name of BACKCHANNEL_PARAMETERS) {
    const value = claims[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value === 'string' || (name === 'requested_expiry' && typeof value === 'number')) params[name] = value;
    else throw invalid(`the request object's ${name} claim must be a string`);
  }
  return params;
}

/** A parameter that can only be a string (requested_expiry is read by requestedExpiry). */
const text = (params: Parameters, name: Exclude<BackchannelParameter, 'requested_expiry'>): string | undefined =>
  params[name] as string | undefined;

/** CIBA Core §7.1 `binding_message`: short, printable, shown to the person (§13: invalid_binding_message). */
function checkedBindingMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const refuse = (why: string) => new OAuthError('invalid_binding_message', `binding_message ${why}`);
  if (/\p{Cs}/u.test(message)) throw refuse('is not valid Unicode text'); // a lone surrogate
  if ([...message].length > MAX_BINDING_MESSAGE_LENGTH) throw refuse(`may have at most ${MAX_BINDING_MESSAGE_LENGTH} characters`);
  // Cf: invisible format characters (U+202E turns the text around) would let a client show the
  // person a message other than the one it bound (CONTRACT.md §7).
  if (/[\p{Cc}\p{Cf}]/u.test(message)) throw refuse('may not contain control or invisible format characters');
  if (/^\s*$/u.test(message)) throw refuse('may not be blank');
  return message;
}

/** CIBA Core §7.1 `requested_expiry`: a positive whole number of seconds. */
function requestedExpiry(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(Number.isInteger(seconds) && seconds > 0)) throw invalid('requested_expiry must be a positive whole number of seconds');
  return seconds;
}

async function hintedUser(
  deps: BackchannelRequestDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  hint: 'login_hint' | 'id_token_hint' | 'login_hint_token',
  value: string,
): Promise<User> {
  switch (hint) {
    case 'login_hint': {
      const user = await deps.users.get(realm.name, value);
      if (!user) throw new OAuthError('unknown_user_id', 'login_hint does not name a user of this realm');
      return user;
    }
    case 'id_token_hint': {
      const claims = await idTokenHintClaims(deps.signingKeys, realm, client.client_id, value);
      if (!claims) throw invalid('id_token_hint is not an ID token this realm issued to the client');
      // OpenID Connect Core §8: its `sub` names the person to this client alone, and cannot be reversed.
      if (client.subject_type === 'pairwise') throw invalid("a pairwise client's id_token_hint does not name its person here: use login_hint or login_hint_token");
      const user = await userBySubject(deps.users, realm.name, claims.sub);
      if (!user) throw new OAuthError('unknown_user_id', 'the id_token_hint names no user of this realm');
      return user;
    }
    case 'login_hint_token':
      return loginHintTokenUser(deps, realm, client, endpointUrl, value);
  }
}
