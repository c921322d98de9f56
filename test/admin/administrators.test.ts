import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/admin/openapi/operations.js';
import { ADMIN_TOKEN, BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { lastEvent } from '../audit/support.js';
import { type ServiceClient, clientCredentials, revoke } from '../support/oauth.js';
import { storeToken } from '../support/tokens.js';
import { type TestUser, createUser, passwordGrant } from '../support/users.js';

/**
 * Administrators with `root` access tokens for the admin resource (CONTRACT.md §14): what each
 * role may do, operation by operation of the OpenAPI document, the changes only realmgate-admin
 * makes, the tokens refused with 401, and the actor each change's audit event names.
 */

const ADMIN_RESOURCE = `${BASE_URL}/admin`;
const REALM = 'acme';

/** The roles of the table, each held by a root client whose client credentials token it uses. */
const ROLES = {
  admin: ['realmgate-admin'],
  realmAdmin: ['realmgate-admin:acme'],
  viewer: ['realmgate-viewer'],
  realmViewer: ['realmgate-viewer:acme'],
  otherAdmin: ['realmgate-admin:other'],
  otherViewer: ['realmgate-viewer:other'],
  rootAdmin: ['realmgate-admin:root'],
} as const;
type Role = keyof typeof ROLES;

/** Expected in realm acme: `read` allowed to its viewers and admins, `change` to its admins, `server` to realmgate-admin alone. */
function expectedAccess(operationId: string, method: string): 'list' | 'read' | 'change' | 'server' {
  if (operationId === 'listRealms') return 'list';
  if (operationId === 'createRealm' || operationId === 'deleteRealm') return 'server';
  if (operationId === 'exportRealm') return 'change';
  return method === 'GET' ? 'read' : 'change';
}

function allowed(role: Role, access: ReturnType<typeof expectedAccess>): boolean {
  switch (access) {
    case 'list':
      return true;
    case 'server':
      return role === 'admin';
    case 'change':
      return role === 'admin' || role === 'realmAdmin';
    case 'read':
      return role === 'admin' || role === 'realmAdmin' || role === 'viewer' || role === 'realmViewer';
  }
}

/** Path parameters naming nothing that exists (but the realm), so that an allowed call changes nothing. */
const PARAMS: Record<string, string> = {
  realm: REALM,
  client_id: 'nobody',
  username: 'nobody',
  name: 'nobody',
  journey: 'nobody',
  alias: 'nobody',
  role: 'nobody',
  group: 'nobody',
  id: randomUUID(),
};

const pathOf = (path: string): string => path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(PARAMS[name]!));

function call(t: TestApp, token: string, method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

/** A root client holding these roles, and an admin token of its client credentials. */
async function roleClient(t: TestApp, roles: readonly string[]): Promise<ServiceClient & { token: string }> {
  const client = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles });
  const service = { clientId: client.client_id, secret: client.client_secret as string };
  return { ...service, token: await adminToken(t, service) };
}

async function adminToken(t: TestApp, client: ServiceClient): Promise<string> {
  const response = await clientCredentials(t.app, 'root', client, { resource: ADMIN_RESOURCE });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { access_token: string }).access_token;
}

describe('administrators with root access tokens', () => {
  let t: TestApp;
  const tokens = {} as Record<Role, string>;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(REALM);
    await t.admin.createRealm('other');
    for (const [role, roles] of Object.entries(ROLES)) tokens[role as Role] = (await roleClient(t, roles)).token;
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('each role against each operation of the OpenAPI document', () => {
    // A body no operation accepts: an allowed call is refused by validation and changes nothing.
    const INVALID_BODY = { unknown_field: true };
    const cases = OPERATIONS.flatMap((operation) =>
      (Object.keys(ROLES) as Role[]).map((role) => ({ operation, role, allowed: allowed(role, expectedAccess(operation.operationId, operation.method)) })),
    );
    // realmgate-admin's deleteRealm deletes acme: it goes last, and acme is made again after.
    cases.sort((a, b) => Number(a.operation.operationId === 'deleteRealm' && a.allowed) - Number(b.operation.operationId === 'deleteRealm' && b.allowed));
    afterAll(async () => {
      await t.admin.createRealm(REALM);
    });

    it.each(cases.map((c) => [`${c.operation.operationId} as ${c.role}: ${c.allowed ? 'allowed' : '403'}`, c] as const))('%s', async (_, { operation, role, allowed }) => {
      const body = operation.method === 'GET' || operation.method === 'DELETE' ? undefined : INVALID_BODY;
      const response = await call(t, tokens[role], operation.method, pathOf(operation.path), body);
      if (allowed) {
        expect([401, 403], `${response.statusCode} ${response.body}`).not.toContain(response.statusCode);
      } else {
        expect(response.statusCode, response.body).toBe(403);
        expect(response.json()).toEqual({ error: 'forbidden', error_description: expect.any(String) });
      }
    });
  });

  it('lists to each caller only the realms it may see', async () => {
    const names = async (role: Role) => ((await call(t, tokens[role], 'GET', '/admin/realms')).json() as Array<{ name: string }>).map((realm) => realm.name).sort();
    const all = ((await t.admin.request('GET', '/realms')).json() as Array<{ name: string }>).map((realm) => realm.name).sort();
    expect(all).toEqual(expect.arrayContaining(['acme', 'other', 'root']));
    expect(await names('admin')).toEqual(all);
    expect(await names('viewer')).toEqual(all);
    expect(await names('realmAdmin')).toEqual(['acme']);
    expect(await names('realmViewer')).toEqual(['acme']);
    expect(await names('otherViewer')).toEqual(['other']);
    expect(await names('rootAdmin')).toEqual(['root']);
  });

  it('names the actor of each change in its audit event: the token\'s subject and client, or ADMIN_TOKEN', async () => {
    const client = await roleClient(t, ['realmgate-admin:other']);
    expect((await call(t, client.token, 'PUT', '/admin/realms/other/scopes/by-token', { description: 'x' })).statusCode).toBe(201);
    expect(await lastEvent(t.admin, 'other', 'scope.saved')).toMatchObject({ actor: { sub: client.clientId, client_id: client.clientId }, details: { scope: 'by-token' } });
    await t.admin.putScope('other', 'by-admin-token');
    expect(await lastEvent(t.admin, 'other', 'scope.saved')).toMatchObject({ actor: { admin_token: true }, details: { scope: 'by-admin-token' } });
    // Events the routes record themselves name it too.
    await createUser(t.admin, 'other', 'ivan');
    const actor = { sub: client.clientId, client_id: client.clientId };
    expect((await call(t, client.token, 'PATCH', '/admin/realms/other/users/ivan', { enabled: false })).statusCode).toBe(200);
    expect(await lastEvent(t.admin, 'other', 'user.disabled')).toMatchObject({ actor, details: { username: 'ivan' } });
    expect((await call(t, client.token, 'DELETE', '/admin/realms/other/users/ivan/sessions')).statusCode).toBe(204);
    expect(await lastEvent(t.admin, 'other', 'user.sessions_ended')).toMatchObject({ actor, details: { username: 'ivan' } });
  });

  it('refuses a realm the caller has no role in alike whether it exists or not', async () => {
    for (const realm of [REALM, 'no-such-realm']) {
      const response = await call(t, tokens.otherAdmin, 'GET', `/admin/realms/${realm}/clients`);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toEqual({ error: 'forbidden', error_description: `your roles do not give access to the realm ${realm}` });
    }
  });

  it('refuses a realm admin the creation of its realm by an import', async () => {
    const ghost = await roleClient(t, ['realmgate-admin:ghost']);
    const response = await call(t, ghost.token, 'PUT', '/admin/realms/ghost/import', { format: 'realmgate-realm', version: 1 });
    expect(response.statusCode, response.body).toBe(403);
    expect((await t.admin.request('GET', '/realms/ghost')).statusCode).toBe(404);
  });

  describe('no escalation: only realmgate-admin gives realmgate-* roles or changes what holds them', () => {
    let rootAdmin: string;
    let adminClient: ServiceClient;

    beforeAll(async () => {
      rootAdmin = tokens.rootAdmin;
      for (const role of ['realmgate-admin', 'realmgate-admin:acme']) expect((await t.admin.request('PUT', `/realms/root/roles/${role}`, {})).statusCode).toBeLessThan(300);
      expect((await t.admin.request('PUT', '/realms/root/roles/auditor', {})).statusCode).toBeLessThan(300);
      expect((await t.admin.request('PUT', '/realms/root/groups/admins', { roles: ['realmgate-admin'] })).statusCode).toBeLessThan(300);
      expect((await t.admin.request('PUT', '/realms/root/groups/staff', { roles: ['auditor'] })).statusCode).toBeLessThan(300);
      await createUser(t.admin, 'root', 'bob');
      const carol = await createUser(t.admin, 'root', 'carol');
      expect((await t.admin.request('PUT', `/realms/root/users/${carol.username}/groups/admins`)).statusCode).toBeLessThan(300);
      const created = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles: ['realmgate-admin:acme'] });
      adminClient = { clientId: created.client_id, secret: created.client_secret as string };
    });

    it.each([
      ['gives a realmgate-* role to a person', 'PUT', '/admin/realms/root/users/bob/roles/realmgate-admin', undefined],
      ['gives a realm\'s admin role to a person', 'PUT', '/admin/realms/root/users/bob/roles/realmgate-admin:acme', undefined],
      ['defines a realmgate-* role', 'PUT', '/admin/realms/root/roles/realmgate-viewer', {}],
      ['makes a group give a realmgate-* role', 'PUT', '/admin/realms/root/groups/staff', { roles: ['auditor', 'realmgate-admin'] }],
      ['changes a group that gives one', 'PUT', '/admin/realms/root/groups/admins', { roles: [] }],
      ['puts a person in a group that gives one', 'PUT', '/admin/realms/root/users/bob/groups/admins', undefined],
      ['changes the password of a person who holds one', 'PATCH', '/admin/realms/root/users/carol', { password: 'taken-over-0123456789' }],
      ['deletes a person who holds one', 'DELETE', '/admin/realms/root/users/carol', undefined],
      ['creates a client that holds one', 'POST', '/admin/realms/root/clients', { grant_types: ['client_credentials'], roles: ['realmgate-admin'] }],
      ['gives one to a client of another realm', 'POST', '/admin/realms/root/clients', { grant_types: ['client_credentials'], roles: ['realmgate-viewer:acme'] }],
      ['changes the journey every administrator signs in through', 'PUT', '/admin/realms/root/journeys/default', { start: 'x', nodes: {} }],
      ['changes the admin resource', 'DELETE', `/admin/realms/root/resources?identifier=${encodeURIComponent(ADMIN_RESOURCE)}`, undefined],
    ] as const)('an admin of root is refused when it %s', async (_, method, url, body) => {
      const response = await call(t, rootAdmin, method, url, body);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toMatchObject({ error: 'forbidden' });
    });

    it('an admin of root is refused changes to a client that holds a realmgate-* role, and its secret', async () => {
      for (const [method, url, body] of [
        ['PATCH', `/admin/realms/root/clients/${adminClient.clientId}`, { roles: [] }],
        ['POST', `/admin/realms/root/clients/${adminClient.clientId}/secret`, undefined],
        ['DELETE', `/admin/realms/root/clients/${adminClient.clientId}`, undefined],
      ] as const) {
        expect((await call(t, rootAdmin, method, url, body)).statusCode).toBe(403);
      }
      expect((await t.admin.request('GET', `/realms/root/clients/${adminClient.clientId}`)).json()).toMatchObject({ roles: ['realmgate-admin:acme'] });
    });

    it('an admin of root manages the people, roles and groups that hold none, and no client of root', async () => {
      expect((await call(t, rootAdmin, 'PATCH', '/admin/realms/root/users/bob', { claims: { name: 'Bob' } })).statusCode).toBe(200);
      expect((await call(t, rootAdmin, 'PUT', '/admin/realms/root/users/bob/roles/auditor')).statusCode).toBeLessThan(300);
      expect((await call(t, rootAdmin, 'PUT', '/admin/realms/root/users/bob/groups/staff')).statusCode).toBeLessThan(300);
      expect((await call(t, rootAdmin, 'POST', '/admin/realms/root/users', { username: 'dave', password: 'pw-dave-0123456789' })).statusCode).toBe(201);
      // A client's redirect URIs would receive administrators' codes.
      expect((await call(t, rootAdmin, 'POST', '/admin/realms/root/clients', { grant_types: ['client_credentials'] })).statusCode).toBe(403);
      const person = (await t.admin.request('GET', '/realms/root/users/bob')).json() as { effective_roles: string[] };
      expect(person.effective_roles).toEqual(['auditor']);
    });

    it('realmgate-admin gives and takes them', async () => {
      expect((await call(t, tokens.admin, 'PUT', '/admin/realms/root/users/bob/roles/realmgate-admin:acme')).statusCode).toBeLessThan(300);
      expect((await call(t, tokens.admin, 'DELETE', '/admin/realms/root/users/bob/roles/realmgate-admin:acme')).statusCode).toBeLessThan(300);
      expect((await call(t, tokens.admin, 'PATCH', `/admin/realms/root/clients/${adminClient.clientId}`, { roles: ['realmgate-viewer'] })).statusCode).toBe(200);
    });
  });

  describe('401 for a token that is not, or no longer, an administrator\'s', () => {
    let person: TestUser;
    let passwordClient: ServiceClient;

    const personToken = async (form: Record<string, string> = { resource: ADMIN_RESOURCE }) => {
      const response = await passwordGrant(t.app, 'root', passwordClient, person, form);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { access_token: string }).access_token;
    };
    const expect401 = async (token: string) => {
      const response = await call(t, token, 'GET', `/admin/realms/${REALM}/clients`);
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json()).toMatchObject({ error: 'invalid_token' });
    };
    const expect200 = async (token: string) => expect((await call(t, token, 'GET', `/admin/realms/${REALM}/clients`)).statusCode).toBe(200);

    beforeAll(async () => {
      const created = await t.admin.createClient('root', { grant_types: ['password'] });
      passwordClient = { clientId: created.client_id, secret: created.client_secret as string };
      person = await createUser(t.admin, 'root', 'erin');
      expect((await t.admin.request('PUT', '/realms/root/roles/realmgate-viewer:acme', {})).statusCode).toBeLessThan(300);
    });

    const grant = async () => expect((await t.admin.request('PUT', `/realms/root/users/${person.username}/roles/realmgate-viewer:acme`)).statusCode).toBeLessThan(300);

    it('a person who holds no realmgate-* role', async () => {
      await t.admin.request('DELETE', `/realms/root/users/${person.username}/roles/realmgate-viewer:acme`);
      await expect401(await personToken());
    });

    it('a person who lost the role, at the next request', async () => {
      await grant();
      const token = await personToken();
      await expect200(token);
      await t.admin.request('DELETE', `/realms/root/users/${person.username}/roles/realmgate-viewer:acme`);
      await expect401(token);
    });

    it('a person who was disabled, at the next request', async () => {
      await grant();
      const token = await personToken();
      await expect200(token);
      expect((await t.admin.request('PATCH', `/realms/root/users/${person.username}`, { enabled: false })).statusCode).toBe(200);
      await expect401(token);
      expect((await t.admin.request('PATCH', `/realms/root/users/${person.username}`, { enabled: true })).statusCode).toBe(200);
    });

    it('a revoked token', async () => {
      await grant();
      const token = await personToken();
      await expect200(token);
      expect((await revoke(t.app, 'root', passwordClient, token)).statusCode).toBe(200);
      await expect401(token);
    });

    it('a client whose roles were taken', async () => {
      const client = await roleClient(t, ['realmgate-viewer:acme']);
      await expect200(client.token);
      expect((await t.admin.request('PATCH', `/realms/root/clients/${client.clientId}`, { roles: [] })).statusCode).toBe(200);
      await expect401(client.token);
    });

    it('a token for another audience, of another realm, or expired', async () => {
      await grant();
      await expect401(await personToken({}));
      const acme = await t.admin.serviceClient(REALM);
      const acmeToken = await clientCredentials(t.app, REALM, acme);
      await expect401((acmeToken.json() as { access_token: string }).access_token);
      const holder = await roleClient(t, ['realmgate-admin']);
      await expect401(await storeToken(t.store, { realm: 'root', clientId: holder.clientId, audience: [ADMIN_RESOURCE], expiresInMs: -1000 }));
      await expect401(`${holder.token}x`);
      await expect200(await storeToken(t.store, { realm: 'root', clientId: holder.clientId, audience: [ADMIN_RESOURCE] }));
    });

    it('ADMIN_TOKEN keeps working', async () => {
      expect((await call(t, ADMIN_TOKEN, 'GET', '/admin/realms')).statusCode).toBe(200);
    });
  });
});
