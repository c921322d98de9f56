import { ROOT_REALM } from '../records/realm-names.js';
import type { AdminTarget } from '../store/admin-callers.js';
import { type Access, ADMIN_ROLE, SERVER_ROLE_PREFIX, accessIn } from './admin-roles.js';
import { OPERATIONS } from './openapi/operations.js';

/**
 * Who may make which admin call (CONTRACT.md §14), in one place: a rule for each operation of
 * the OpenAPI document, judged against the caller's `root` roles before the route runs.
 */

export { ADMIN_ROLE, VIEWER_ROLE, isAdministrator, maySee } from './admin-roles.js';

/** What a call names: its path parameters, its query and its body (parsed, unchecked). */
export interface Call {
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, unknown>>;
  body: Readonly<Record<string, unknown>>;
  /** Whether the realm of the path exists; asked only of operations that would create it. */
  realmExists?: boolean;
}

interface Rule {
  access: Access;
  /**
   * Of the changes an admin of `root` alone may make there: managing people, roles and groups.
   * The others (clients, journeys, identity providers, trusted issuers, settings, import,
   * resources…) decide how anyone, an administrator too, signs in or gets tokens (a client's
   * redirect URIs receive administrators' codes), so they are `realmgate-admin`'s in `root`.
   */
  rootDelegable?: true;
  /** The call creates its realm when absent: only `realmgate-admin` creates realms. */
  createsRealm?: true;
}

const read: Rule = { access: 'read' };
const change: Rule = { access: 'change' };
const people: Rule = { access: 'change', rootDelegable: true };
const server: Rule = { access: 'server' };

/** By operationId; an operation of the document without a rule stops the admin API from starting. */
const RULES: Readonly<Record<string, Rule>> = {
  listRealms: read,
  createRealm: server,
  getRealm: read,
  updateRealm: change,
  deleteRealm: server,
  // An export may hold every password hash of the realm: its admins', not its viewers'.
  exportRealm: change,
  importRealm: { access: 'change', createsRealm: true },
  listClients: read,
  createClient: change,
  getClient: read,
  updateClient: change,
  deleteClient: change,
  rotateClientSecret: change,
  listUsers: read,
  createUser: people,
  getUser: read,
  updateUser: people,
  listUserSessions: read,
  endUserSessions: people,
  deleteUser: people,
  enrolTotp: people,
  listScopes: read,
  getScope: read,
  putScope: change,
  deleteScope: change,
  listKeys: read,
  rotateKeys: change,
  createInitialAccessToken: change,
  listTrustedIssuers: read,
  createTrustedIssuer: change,
  getTrustedIssuer: read,
  updateTrustedIssuer: change,
  deleteTrustedIssuer: change,
  listJourneys: read,
  getJourney: read,
  putJourney: change,
  deleteJourney: change,
  listIdentityProviders: read,
  createIdentityProvider: change,
  getIdentityProvider: read,
  updateIdentityProvider: change,
  deleteIdentityProvider: change,
  listRoles: read,
  getRole: read,
  putRole: people,
  deleteRole: people,
  grantRole: people,
  revokeRole: people,
  listGroups: read,
  getGroup: read,
  putGroup: people,
  deleteGroup: people,
  joinGroup: people,
  leaveGroup: people,
  getResources: read,
  putResource: change,
  deleteResource: change,
  listEvents: read,
  getRealmPermissions: read,
  sendPasswordReset: people,
  sendEmailVerification: people,
  removeUserTotp: people,
  listUserPasskeys: read,
  deleteUserPasskey: people,
  listUserConsents: read,
  revokeUserConsent: people,
  listWebhooks: read,
  putWebhook: change,
  getWebhook: read,
  deleteWebhook: change,
  getTexts: read,
  getTextCatalogue: read,
  putTexts: change,
  deleteTexts: change,
};

export interface AdminOperation {
  readonly operationId: string;
  readonly rule: Rule;
}

/**
 * Each operation by `METHOD /admin/path` as the router has it, with its rule; built at first use,
 * as the routes' modules that the document imports import this one.
 */
let byRoute: ReadonlyMap<string, AdminOperation> | undefined;

function operationsByRoute(): ReadonlyMap<string, AdminOperation> {
  byRoute ??= new Map(
    OPERATIONS.map((operation) => {
      const rule = RULES[operation.operationId];
      if (!rule) throw new Error(`admin operation ${operation.operationId} has no permission rule (src/admin/permissions.ts)`);
      return [`${operation.method} ${operation.path}`, { operationId: operation.operationId, rule }];
    }),
  );
  return byRoute;
}

/** Throws when an operation of the document has no rule: called as the admin API starts. */
export function checkEveryOperationHasARule(): void {
  operationsByRoute();
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: Decision = { allowed: true };
const refused = (reason: string): Decision => ({ allowed: false, reason });

const RANK: Readonly<Record<Access, number>> = { read: 0, change: 1, server: 2 };

/** The operation of a route, if it is one of the document's (the document itself is not). */
export function operationOf(method: string, route: string | undefined): AdminOperation | undefined {
  return route === undefined ? undefined : operationsByRoute().get(`${method} ${route}`);
}

const isServerRole = (name: unknown): boolean => typeof name === 'string' && name.startsWith(SERVER_ROLE_PREFIX);

/**
 * The part of `decide` known from the path alone, judged before the realm is looked up: a realm
 * the caller has no role in is refused alike whether it exists or not, so that its name is not learnt.
 */
export function decideRealm(roles: readonly string[], params: Call['params']): Decision {
  const realm = params.realm;
  if (realm === undefined || accessIn(roles, realm) !== undefined) return ALLOWED;
  return refused(`your roles do not give access to the realm ${realm}`);
}

/** What the call names in `root` whose `realmgate-*` roles its check needs (read with the caller, in one statement). */
export function targetOf(call: Call): AdminTarget {
  if (call.params.realm !== ROOT_REALM) return {};
  return { username: call.params.username, group: call.params.group };
}

/**
 * Whether a caller with these roles may make the call. Only `realmgate-admin` gives or takes
 * `realmgate-*` roles or changes what holds them: `targetRoles` are those of the person or group
 * the call names in `root` (`root`'s clients and resources, the admin resource among them, are
 * `realmgate-admin`'s alone by their rules).
 */
export function decide({ rule }: AdminOperation, roles: readonly string[], call: Call, targetRoles: readonly string[]): Decision {
  const realm = call.params.realm;
  if (roles.includes(ADMIN_ROLE)) return ALLOWED;
  if (realm === undefined) {
    return rule.access === 'read' ? ALLOWED : refused('only realmgate-admin creates realms');
  }
  const access = accessIn(roles, realm);
  if (access === undefined) return refused(`your roles do not give access to the realm ${realm}`);
  if (RANK[access] < RANK[rule.access]) {
    return refused(rule.access === 'server' ? 'only realmgate-admin may do this' : `your roles give read-only access to the realm ${realm}`);
  }
  if (rule.createsRealm && call.realmExists === false) return refused('only realmgate-admin creates realms');
  if (realm === ROOT_REALM && rule.access !== 'read' && !rule.rootDelegable) {
    return refused('in the root realm, only realmgate-admin may change this');
  }
  const escalation = givesServerRoles(call, targetRoles);
  return escalation ? refused(escalation) : ALLOWED;
}

/** Why the call would give or take `realmgate-*` roles or touch what holds them; undefined when it does not. */
function givesServerRoles(call: Call, targetRoles: readonly string[]): string | undefined {
  if (isServerRole(call.params.role)) return 'only realmgate-admin gives, takes or defines realmgate-* roles';
  const bodyRoles = Array.isArray(call.body.roles) ? call.body.roles : [];
  if (bodyRoles.some(isServerRole)) return 'only realmgate-admin gives realmgate-* roles';
  if (targetRoles.length > 0) return 'only realmgate-admin changes what holds realmgate-* roles';
  return undefined;
}

/**
 * What the roles allow of each operation in the realm, judged as a call naming nothing but the
 * realm would be (the console hides or disables what its person may not do; the server still
 * judges each call, with what it names). `undefined` roles: `ADMIN_TOKEN`, which may do everything.
 */
export function decisionsIn(roles: readonly string[] | undefined, realm: string): Record<string, Decision> {
  const decisions: Record<string, Decision> = {};
  for (const [route, operation] of operationsByRoute()) {
    const params = route.includes('/:realm') ? { realm } : {};
    decisions[operation.operationId] = roles === undefined ? ALLOWED : decide(operation, roles, { params, query: {}, body: {}, realmExists: true }, []);
  }
  return decisions;
}
