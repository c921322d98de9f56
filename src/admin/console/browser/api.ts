/**
 * The admin console's api module: the admin API as the page calls it. The admin token is kept
 * for this tab only (sessionStorage), never in localStorage or a cookie, and is sent as
 * `Authorization: Bearer`.
 */
import type {
  AuditEvent,
  Client,
  Group,
  IdentityProvider,
  ImportSummary,
  NamedJourney,
  Realm,
  RealmSummary,
  Resource,
  Role,
  Scope,
  SigningKey,
  TrustedIssuer,
  User,
  UserSession,
} from './records.js';
import type { Decision } from './permissions.js';
import { t } from './i18n.js';
import { sessionToken } from './session.js';

const TOKEN_KEY = 'realmgate.admin_token';

/** The admin token of this tab: gone when the tab closes, never shared with another tab. */
export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  forget: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An admin API refusal: its status, and the contract's error and error_description. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

type Body = object;

const segment = (value: string) => encodeURIComponent(value);
const realmPath = (realm: string, rest = '') => '/realms/' + segment(realm) + rest;

/** One call of the admin API; the answer's JSON, or an ApiError. A refused token is announced to the page. */
export async function call<T = unknown>(method: string, path: string, body?: unknown, token = sessionToken() ?? adminToken.get()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch('/admin' + path, init);
  } catch {
    throw new ApiError(0, 'unreachable', t('The server could not be reached.'));
  }
  const text = await response.text();
  let answer: { error?: string; error_description?: string } | undefined;
  try {
    answer = text ? JSON.parse(text) : undefined;
  } catch {
    answer = undefined;
  }
  if (response.ok) return answer as T;
  const error = new ApiError(
    response.status,
    answer?.error ?? 'http_' + response.status,
    answer?.error_description ?? t('The server answered {status}.', { status: response.status }),
  );
  if (response.status === 401) dispatchEvent(new CustomEvent('admin-token-refused', { detail: error }));
  throw error;
}

/** The calls of CONTRACT.md §5 the console makes. */
export const api = {
  realms: () => call<RealmSummary[]>('GET', '/realms'),
  createRealm: (name: string) => call<RealmSummary>('POST', '/realms', { name }),
  realm: (realm: string) => call<Realm>('GET', realmPath(realm)),
  updateSettings: (realm: string, settings: Record<string, unknown>) => call<Realm>('PATCH', realmPath(realm), { settings }),
  deleteRealm: (realm: string) => call<void>('DELETE', realmPath(realm)),
  exportRealm: (realm: string, users: boolean) => call<unknown>('GET', realmPath(realm, '/export') + (users ? '?users=true' : '')),
  importRealm: (realm: string, document: unknown, prune: boolean) => call<ImportSummary>('PUT', realmPath(realm, '/import') + (prune ? '?prune=true' : ''), document),

  clients: (realm: string) => call<Client[]>('GET', realmPath(realm, '/clients')),
  client: (realm: string, clientId: string) => call<Client>('GET', realmPath(realm, '/clients/' + segment(clientId))),
  createClient: (realm: string, record: Body) => call<Client>('POST', realmPath(realm, '/clients'), record),
  updateClient: (realm: string, clientId: string, patch: Body) => call<Client>('PATCH', realmPath(realm, '/clients/' + segment(clientId)), patch),
  rotateSecret: (realm: string, clientId: string) => call<{ client_id: string; client_secret: string }>('POST', realmPath(realm, '/clients/' + segment(clientId) + '/secret')),
  deleteClient: (realm: string, clientId: string) => call<void>('DELETE', realmPath(realm, '/clients/' + segment(clientId))),

  users: (realm: string, query: URLSearchParams) => call<{ users: User[]; next?: string | null }>('GET', realmPath(realm, '/users') + (query.size > 0 ? '?' + query : '')),
  user: (realm: string, username: string) => call<User>('GET', realmPath(realm, '/users/' + segment(username))),
  sessions: (realm: string, username: string) => call<{ sessions: UserSession[] }>('GET', realmPath(realm, '/users/' + segment(username) + '/sessions')),
  endSessions: (realm: string, username: string) => call<void>('DELETE', realmPath(realm, '/users/' + segment(username) + '/sessions')),
  createUser: (realm: string, user: Body) => call<User>('POST', realmPath(realm, '/users'), user),
  updateUser: (realm: string, username: string, patch: Body) => call<User>('PATCH', realmPath(realm, '/users/' + segment(username)), patch),
  enrolTotp: (realm: string, username: string) => call<{ secret: string; otpauth_uri: string }>('POST', realmPath(realm, '/users/' + segment(username) + '/totp')),
  deleteUser: (realm: string, username: string) => call<void>('DELETE', realmPath(realm, '/users/' + segment(username))),
  grantRole: (realm: string, username: string, role: string) => call<void>('PUT', realmPath(realm, '/users/' + segment(username) + '/roles/' + segment(role))),
  revokeRole: (realm: string, username: string, role: string) => call<void>('DELETE', realmPath(realm, '/users/' + segment(username) + '/roles/' + segment(role))),
  joinGroup: (realm: string, username: string, group: string) => call<void>('PUT', realmPath(realm, '/users/' + segment(username) + '/groups/' + segment(group))),
  leaveGroup: (realm: string, username: string, group: string) => call<void>('DELETE', realmPath(realm, '/users/' + segment(username) + '/groups/' + segment(group))),

  scopes: (realm: string) => call<Scope[]>('GET', realmPath(realm, '/scopes')),
  putScope: (realm: string, name: string, scope: Body) => call<Scope>('PUT', realmPath(realm, '/scopes/' + segment(name)), scope),
  deleteScope: (realm: string, name: string) => call<void>('DELETE', realmPath(realm, '/scopes/' + segment(name))),

  roles: (realm: string) => call<Role[]>('GET', realmPath(realm, '/roles')),
  putRole: (realm: string, name: string, role: Body) => call<Role>('PUT', realmPath(realm, '/roles/' + segment(name)), role),
  deleteRole: (realm: string, name: string) => call<void>('DELETE', realmPath(realm, '/roles/' + segment(name))),

  groups: (realm: string) => call<Group[]>('GET', realmPath(realm, '/groups')),
  putGroup: (realm: string, name: string, group: Body) => call<Group>('PUT', realmPath(realm, '/groups/' + segment(name)), group),
  deleteGroup: (realm: string, name: string) => call<void>('DELETE', realmPath(realm, '/groups/' + segment(name))),

  resources: (realm: string) => call<Resource[]>('GET', realmPath(realm, '/resources')),
  putResource: (realm: string, resource: Body) => call<Resource>('PUT', realmPath(realm, '/resources'), resource),
  deleteResource: (realm: string, identifier: string) => call<void>('DELETE', realmPath(realm, '/resources?' + new URLSearchParams({ identifier }))),

  journeys: (realm: string) => call<{ journeys: NamedJourney[] }>('GET', realmPath(realm, '/journeys')),
  putJourney: (realm: string, name: string, journey: Body) => call<NamedJourney>('PUT', realmPath(realm, '/journeys/' + segment(name)), journey),
  deleteJourney: (realm: string, name: string) => call<void>('DELETE', realmPath(realm, '/journeys/' + segment(name))),

  keys: (realm: string) => call<{ keys: SigningKey[] }>('GET', realmPath(realm, '/keys')),
  rotateKeys: (realm: string) => call<{ keys: SigningKey[] }>('POST', realmPath(realm, '/keys/rotate')),

  identityProviders: (realm: string) => call<IdentityProvider[]>('GET', realmPath(realm, '/identity-providers')),
  createIdentityProvider: (realm: string, provider: Body) => call<IdentityProvider>('POST', realmPath(realm, '/identity-providers'), provider),
  updateIdentityProvider: (realm: string, alias: string, patch: Body) => call<IdentityProvider>('PATCH', realmPath(realm, '/identity-providers/' + segment(alias)), patch),
  deleteIdentityProvider: (realm: string, alias: string) => call<void>('DELETE', realmPath(realm, '/identity-providers/' + segment(alias))),

  trustedIssuers: (realm: string) => call<TrustedIssuer[]>('GET', realmPath(realm, '/trusted-issuers')),
  createTrustedIssuer: (realm: string, issuer: Body) => call<TrustedIssuer>('POST', realmPath(realm, '/trusted-issuers'), issuer),
  updateTrustedIssuer: (realm: string, id: string, patch: Body) => call<TrustedIssuer>('PATCH', realmPath(realm, '/trusted-issuers/' + segment(id)), patch),
  deleteTrustedIssuer: (realm: string, id: string) => call<void>('DELETE', realmPath(realm, '/trusted-issuers/' + segment(id))),

  createInitialAccessToken: (realm: string, request: Body) => call<{ token: string; expires_in: number }>('POST', realmPath(realm, '/initial-access-tokens'), request),

  permissions: (realm: string) => call<{ realm: string; operations: Record<string, Decision> }>('GET', realmPath(realm, '/permissions')),

  events: (realm: string, query: URLSearchParams) => call<{ events: AuditEvent[]; next?: string | null }>('GET', realmPath(realm, '/events') + (query.size > 0 ? '?' + query : '')),
};
