/**
 * `api.js` of the admin console: the admin API as the page calls it. The admin token is kept
 * for this tab only (sessionStorage), never in localStorage or a cookie, and is sent as
 * `Authorization: Bearer`. Served as it is (src/admin/console/assets.ts): plain modern JS.
 */
export const API_JS = String.raw`const TOKEN_KEY = 'realmgate.admin_token';

/** The admin token of this tab: gone when the tab closes, never shared with another tab. */
export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  forget: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An admin API refusal: its status, and the contract's error and error_description. */
export class ApiError extends Error {
  constructor(status, error, description) {
    super(description);
    this.status = status;
    this.error = error;
  }
}

const segment = (value) => encodeURIComponent(value);
const realmPath = (realm, rest = '') => '/realms/' + segment(realm) + rest;

/** One call of the admin API; the answer's JSON, or an ApiError. A refused token is announced to the page. */
export async function call(method, path, body, token = adminToken.get()) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  const init = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch('/admin' + path, init);
  } catch {
    throw new ApiError(0, 'unreachable', 'The server could not be reached.');
  }
  const text = await response.text();
  let answer;
  try {
    answer = text ? JSON.parse(text) : undefined;
  } catch {
    answer = undefined;
  }
  if (response.ok) return answer;
  const error = new ApiError(
    response.status,
    answer?.error ?? 'http_' + response.status,
    answer?.error_description ?? 'The server answered ' + response.status + '.',
  );
  if (response.status === 401) dispatchEvent(new CustomEvent('admin-token-refused', { detail: error }));
  throw error;
}

/** The calls of CONTRACT.md §5 the console makes. */
export const api = {
  realms: () => call('GET', '/realms'),
  createRealm: (name) => call('POST', '/realms', { name }),
  realm: (realm) => call('GET', realmPath(realm)),
  updateSettings: (realm, settings) => call('PATCH', realmPath(realm), { settings }),
  deleteRealm: (realm) => call('DELETE', realmPath(realm)),
  exportRealm: (realm, users) => call('GET', realmPath(realm, '/export') + (users ? '?users=true' : '')),
  importRealm: (realm, document, prune) => call('PUT', realmPath(realm, '/import') + (prune ? '?prune=true' : ''), document),

  clients: (realm) => call('GET', realmPath(realm, '/clients')),
  createClient: (realm, record) => call('POST', realmPath(realm, '/clients'), record),
  updateClient: (realm, clientId, patch) => call('PATCH', realmPath(realm, '/clients/' + segment(clientId)), patch),
  rotateSecret: (realm, clientId) => call('POST', realmPath(realm, '/clients/' + segment(clientId) + '/secret')),
  deleteClient: (realm, clientId) => call('DELETE', realmPath(realm, '/clients/' + segment(clientId))),

  users: (realm, query) => call('GET', realmPath(realm, '/users') + (query.size > 0 ? '?' + query : '')),
  user: (realm, username) => call('GET', realmPath(realm, '/users/' + segment(username))),
  sessions: (realm, username) => call('GET', realmPath(realm, '/users/' + segment(username) + '/sessions')),
  endSessions: (realm, username) => call('DELETE', realmPath(realm, '/users/' + segment(username) + '/sessions')),
  createUser: (realm, user) => call('POST', realmPath(realm, '/users'), user),
  updateUser: (realm, username, patch) => call('PATCH', realmPath(realm, '/users/' + segment(username)), patch),
  enrolTotp: (realm, username) => call('POST', realmPath(realm, '/users/' + segment(username) + '/totp')),
  deleteUser: (realm, username) => call('DELETE', realmPath(realm, '/users/' + segment(username))),
  grantRole: (realm, username, role) => call('PUT', realmPath(realm, '/users/' + segment(username) + '/roles/' + segment(role))),
  revokeRole: (realm, username, role) => call('DELETE', realmPath(realm, '/users/' + segment(username) + '/roles/' + segment(role))),
  joinGroup: (realm, username, group) => call('PUT', realmPath(realm, '/users/' + segment(username) + '/groups/' + segment(group))),
  leaveGroup: (realm, username, group) => call('DELETE', realmPath(realm, '/users/' + segment(username) + '/groups/' + segment(group))),

  scopes: (realm) => call('GET', realmPath(realm, '/scopes')),
  putScope: (realm, name, scope) => call('PUT', realmPath(realm, '/scopes/' + segment(name)), scope),
  deleteScope: (realm, name) => call('DELETE', realmPath(realm, '/scopes/' + segment(name))),

  roles: (realm) => call('GET', realmPath(realm, '/roles')),
  putRole: (realm, name, role) => call('PUT', realmPath(realm, '/roles/' + segment(name)), role),
  deleteRole: (realm, name) => call('DELETE', realmPath(realm, '/roles/' + segment(name))),

  groups: (realm) => call('GET', realmPath(realm, '/groups')),
  putGroup: (realm, name, group) => call('PUT', realmPath(realm, '/groups/' + segment(name)), group),
  deleteGroup: (realm, name) => call('DELETE', realmPath(realm, '/groups/' + segment(name))),

  resources: (realm) => call('GET', realmPath(realm, '/resources')),
  putResource: (realm, resource) => call('PUT', realmPath(realm, '/resources'), resource),
  deleteResource: (realm, identifier) => call('DELETE', realmPath(realm, '/resources?' + new URLSearchParams({ identifier }))),

  journeys: (realm) => call('GET', realmPath(realm, '/journeys')),
  putJourney: (realm, name, journey) => call('PUT', realmPath(realm, '/journeys/' + segment(name)), journey),
  deleteJourney: (realm, name) => call('DELETE', realmPath(realm, '/journeys/' + segment(name))),

  keys: (realm) => call('GET', realmPath(realm, '/keys')),
  rotateKeys: (realm) => call('POST', realmPath(realm, '/keys/rotate')),

  identityProviders: (realm) => call('GET', realmPath(realm, '/identity-providers')),
  createIdentityProvider: (realm, provider) => call('POST', realmPath(realm, '/identity-providers'), provider),
  updateIdentityProvider: (realm, alias, patch) => call('PATCH', realmPath(realm, '/identity-providers/' + segment(alias)), patch),
  deleteIdentityProvider: (realm, alias) => call('DELETE', realmPath(realm, '/identity-providers/' + segment(alias))),

  trustedIssuers: (realm) => call('GET', realmPath(realm, '/trusted-issuers')),
  createTrustedIssuer: (realm, issuer) => call('POST', realmPath(realm, '/trusted-issuers'), issuer),
  updateTrustedIssuer: (realm, id, patch) => call('PATCH', realmPath(realm, '/trusted-issuers/' + segment(id)), patch),
  deleteTrustedIssuer: (realm, id) => call('DELETE', realmPath(realm, '/trusted-issuers/' + segment(id))),

  createInitialAccessToken: (realm, request) => call('POST', realmPath(realm, '/initial-access-tokens'), request),

  events: (realm, query) => call('GET', realmPath(realm, '/events') + (query.size > 0 ? '?' + query : '')),
};
`;
