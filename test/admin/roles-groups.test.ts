import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { createUser } from '../support/users.js';
import { lastEvent } from '../audit/support.js';
import { expectAdminError } from './helpers.js';

type Json = Record<string, unknown>;

/** Roles, groups and people's roles and groups through the admin API (CONTRACT.md §10). */
describe('admin API: roles and groups', () => {
  let t: TestApp;
  const realm = 'acme';

  const roleUrl = (name?: string, inRealm = realm) => `/realms/${inRealm}/roles${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  const groupUrl = (name?: string, inRealm = realm) => `/realms/${inRealm}/groups${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  const userRoleUrl = (username: string, role: string, inRealm = realm) => `/realms/${inRealm}/users/${encodeURIComponent(username)}/roles/${encodeURIComponent(role)}`;
  const userGroupUrl = (username: string, group: string, inRealm = realm) => `/realms/${inRealm}/users/${encodeURIComponent(username)}/groups/${encodeURIComponent(group)}`;

  const putRole = (name: string, body: unknown = {}, inRealm = realm) => t.admin.request('PUT', roleUrl(name, inRealm), body);
  const putGroup = (name: string, body: unknown = {}, inRealm = realm) => t.admin.request('PUT', groupUrl(name, inRealm), body);
  const getJson = async (url: string): Promise<Json> => {
    const response = await t.admin.request('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Json;
  };
  const userOf = (username: string, inRealm = realm) => getJson(`/realms/${inRealm}/users/${encodeURIComponent(username)}`);
  const count = async (table: 'roles' | 'groups' | 'group_roles' | 'user_roles' | 'user_groups', inRealm = realm): Promise<number> =>
    (await t.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE realm = $1`, [inRealm])).rows[0]!.n;
  const expect204 = (response: { statusCode: number; body: string }) => {
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(realm);
    await t.admin.createRealm('other');
  });
  afterAll(() => t.close());

  describe('roles', () => {
    it('PUT creates a role: 201 {name, description}; again, 200 with the new description; without one, the description stays', async () => {
      const created = await putRole('invoice-approver', { description: 'Approves invoices' });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({ name: 'invoice-approver', description: 'Approves invoices' });

      const changed = await putRole('invoice-approver', { description: 'Approves invoices up to 10k' });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toEqual({ name: 'invoice-approver', description: 'Approves invoices up to 10k' });

      const kept = await putRole('invoice-approver', {});
      expect(kept.statusCode).toBe(200);
      expect(kept.json()).toEqual({ name: 'invoice-approver', description: 'Approves invoices up to 10k' });
      expect(await getJson(roleUrl('invoice-approver'))).toEqual(kept.json());

      const bare = await putRole('reader');
      expect(bare.statusCode).toBe(201);
      expect(bare.json()).toEqual({ name: 'reader', description: '' });
    });

    it('lists the realm\'s roles by name, and only its own', async () => {
      await putRole('Zeta');
      await putRole('alpha:admin');
      await putRole('elsewhere', {}, 'other');
      const names = ((await t.admin.request('GET', roleUrl())).json() as Json[]).map((role) => role.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(['Zeta', 'alpha:admin', 'invoice-approver', 'reader']));
      expect(names).not.toContain('elsewhere');
      expectAdminError(await t.admin.request('GET', roleUrl('elsewhere')), 404, 'not_found');
    });

    it.each([
      ['a space', 'two words'],
      ['a slash', 'a/b'],
      ['a leading dot', '.hidden'],
      ['a non-ASCII letter', 'café'],
      ['129 characters', 'r'.repeat(129)],
    ])('refuses a role name with %s: 400 invalid_request naming role, nothing created', async (_rule, name) => {
      const before = await count('roles');
      const response = await putRole(name, { description: 'x' });
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toMatch(/^role: /);
      expect(await count('roles')).toBe(before);
    });

    it('refuses a body that is not {description?}: 400 naming the field, nothing written', async () => {
      for (const [body, field] of [[{ description: 42 }, 'description'], [{ description: 'x'.repeat(1001) }, 'description'], [{ name: 'x' }, 'name']] as const) {
        const response = await putRole('badbody', body);
        expectAdminError(response, 400, 'invalid_request');
        expect(response.json().error_description).toContain(field);
      }
      expectAdminError(await t.admin.request('GET', roleUrl('badbody')), 404, 'not_found');
    });

    it('answers 404 for a role it does not have, and on an unknown realm', async () => {
      expectAdminError(await t.admin.request('GET', roleUrl('nobody-has-this')), 404, 'not_found');
      expectAdminError(await t.admin.request('DELETE', roleUrl('nobody-has-this')), 404, 'not_found');
      expectAdminError(await putRole('reader', {}, 'no-such-realm'), 404, 'not_found');
      expectAdminError(await t.admin.request('GET', roleUrl(undefined, 'no-such-realm')), 404, 'not_found');
    });

    it('records role.saved and role.deleted', async () => {
      await putRole('audited', { description: 'x' });
      expect((await lastEvent(t.admin, realm, 'role.saved')).details).toEqual({ role: 'audited' });
      expect204(await t.admin.request('DELETE', roleUrl('audited')));
      expect((await lastEvent(t.admin, realm, 'role.deleted')).details).toEqual({ role: 'audited' });
    });
  });

  describe('groups', () => {
    beforeAll(async () => {
      await putRole('ledger:read');
      await putRole('ledger:write');
    });

    it('PUT creates a group with its roles: 201 {name, description, roles}, the roles in name order', async () => {
      const created = await putGroup('accounting', { description: 'The accounting team', roles: ['ledger:write', 'ledger:read'] });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toEqual({ name: 'accounting', description: 'The accounting team', roles: ['ledger:read', 'ledger:write'] });
      expect(await getJson(groupUrl('accounting'))).toEqual(created.json());
      expect(((await t.admin.request('GET', groupUrl())).json() as Json[]).find((group) => group.name === 'accounting')).toEqual(created.json());
    });

    it('PUT again: roles sent replace the group\'s, fields left out stay', async () => {
      const kept = await putGroup('accounting', { description: 'Accounting' });
      expect(kept.statusCode).toBe(200);
      expect(kept.json()).toEqual({ name: 'accounting', description: 'Accounting', roles: ['ledger:read', 'ledger:write'] });
      const replaced = await putGroup('accounting', { roles: ['ledger:read'] });
      expect(replaced.json()).toEqual({ name: 'accounting', description: 'Accounting', roles: ['ledger:read'] });
      const emptied = await putGroup('accounting', { roles: [] });
      expect(emptied.json()).toEqual({ name: 'accounting', description: 'Accounting', roles: [] });
      expect((await putGroup('accounting', { roles: ['ledger:read', 'ledger:write'] })).statusCode).toBe(200);
    });

    it('refuses a role the realm does not have: 400 naming roles and the missing role; the group and its roles do not change', async () => {
      await putRole('only-here', {}, 'other');
      const before = { groups: await count('groups'), links: await count('group_roles') };
      for (const roles of [['ledger:read', 'no-such-role'], ['only-here']]) {
        const refused = await putGroup('accounting', { description: 'Changed', roles });
        expectAdminError(refused, 400, 'invalid_request');
        expect(refused.json().error_description).toBe(`roles: no such role in the realm: ${roles.at(-1)}`);
        const created = await putGroup('new-group', { roles });
        expectAdminError(created, 400, 'invalid_request');
      }
      expect(await getJson(groupUrl('accounting'))).toEqual({ name: 'accounting', description: 'Accounting', roles: ['ledger:read', 'ledger:write'] });
      expectAdminError(await t.admin.request('GET', groupUrl('new-group')), 404, 'not_found');
      expect({ groups: await count('groups'), links: await count('group_roles') }).toEqual(before);
    });

    it('refuses bad bodies and names: 400 naming the field, nothing written', async () => {
      const before = { groups: await count('groups'), links: await count('group_roles') };
      for (const [name, body, field] of [
        ['g1', { roles: 'ledger:read' }, 'roles'],
        ['g1', { roles: ['ledger:read', 'ledger:read'] }, 'roles'],
        ['g1', { roles: ['bad name'] }, 'roles'],
        ['g1', { description: null }, 'description'],
        ['g1', { members: [] }, 'body: Unrecognized key: "members"'],
        ['has space', {}, 'group'],
      ] as const) {
        const response = await putGroup(name, body);
        expectAdminError(response, 400, 'invalid_request');
        expect(response.json().error_description, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
      }
      expect({ groups: await count('groups'), links: await count('group_roles') }).toEqual(before);
    });

    it('records group.saved with the fields sent, and group.deleted', async () => {
      await putGroup('audited', { roles: [] });
      expect((await lastEvent(t.admin, realm, 'group.saved')).details).toEqual({ group: 'audited', fields: ['roles'] });
      expect204(await t.admin.request('DELETE', groupUrl('audited')));
      expect((await lastEvent(t.admin, realm, 'group.deleted')).details).toEqual({ group: 'audited' });
      expectAdminError(await t.admin.request('DELETE', groupUrl('audited')), 404, 'not_found');
    });
  });

  describe('a person\'s roles and groups', () => {
    beforeAll(async () => {
      await putRole('auditor');
      await putRole('ledger:read');
      await putRole('ledger:write');
      await putGroup('bookkeepers', { roles: ['ledger:read', 'ledger:write'] });
      await createUser(t.admin, realm, 'carol');
      await createUser(t.admin, realm, 'dave');
    });

    it('a new person has none; the answers about one person show roles, groups and effective_roles', async () => {
      const created = await t.admin.request('POST', `/realms/${realm}/users`, { username: 'erin', password: 'a long password 1' });
      expect(created.json()).toMatchObject({ roles: [], groups: [], effective_roles: [] });
      expect(await userOf('erin')).toMatchObject({ roles: [], groups: [], effective_roles: [] });
    });

    it('PUT gives a role and adds to a group (204, again 204); the person\'s roles are their own and their groups\'', async () => {
      expect204(await t.admin.request('PUT', userRoleUrl('carol', 'auditor')));
      expect204(await t.admin.request('PUT', userRoleUrl('carol', 'auditor')));
      expect204(await t.admin.request('PUT', userRoleUrl('carol', 'ledger:read')));
      expect204(await t.admin.request('PUT', userGroupUrl('carol', 'bookkeepers')));
      expect204(await t.admin.request('PUT', userGroupUrl('CAROL', 'bookkeepers')));
      expect(await userOf('carol')).toMatchObject({
        roles: ['auditor', 'ledger:read'],
        groups: ['bookkeepers'],
        effective_roles: ['auditor', 'ledger:read', 'ledger:write'],
      });
      const patched = await t.admin.request('PATCH', `/realms/${realm}/users/carol`, { claims: { name: 'Carol' } });
      expect(patched.json()).toMatchObject({ roles: ['auditor', 'ledger:read'], groups: ['bookkeepers'] });
      expect((await lastEvent(t.admin, realm, 'user.role_granted')).details).toEqual({ username: 'carol', role: 'ledger:read' });
      expect((await lastEvent(t.admin, realm, 'user.group_joined')).details).toEqual({ username: 'CAROL', group: 'bookkeepers' });
    });

    it('DELETE takes a role the person holds themselves, or a group, away: 204; 404 when they do not hold it', async () => {
      expect204(await t.admin.request('PUT', userRoleUrl('dave', 'ledger:read')));
      expect204(await t.admin.request('PUT', userGroupUrl('dave', 'bookkeepers')));
      expect204(await t.admin.request('DELETE', userRoleUrl('dave', 'ledger:read')));
      // The group still gives it.
      expect(await userOf('dave')).toMatchObject({ roles: [], groups: ['bookkeepers'], effective_roles: ['ledger:read', 'ledger:write'] });
      expectAdminError(await t.admin.request('DELETE', userRoleUrl('dave', 'ledger:read')), 404, 'not_found');
      expect204(await t.admin.request('DELETE', userGroupUrl('dave', 'bookkeepers')));
      expect(await userOf('dave')).toMatchObject({ roles: [], groups: [], effective_roles: [] });
      expectAdminError(await t.admin.request('DELETE', userGroupUrl('dave', 'bookkeepers')), 404, 'not_found');
      expect((await lastEvent(t.admin, realm, 'user.role_revoked')).details).toEqual({ username: 'dave', role: 'ledger:read' });
      expect((await lastEvent(t.admin, realm, 'user.group_left')).details).toEqual({ username: 'dave', group: 'bookkeepers' });
    });

    it('answers 404 naming an unknown person, role or group, and writes nothing', async () => {
      const before = { roles: await count('user_roles'), groups: await count('user_groups') };
      const cases = [
        [userRoleUrl('nobody', 'auditor'), 'no such user'],
        [userRoleUrl('carol', 'no-such-role'), 'no such role'],
        [userRoleUrl('carol', 'bad name'), 'no such role'],
        [userGroupUrl('nobody', 'bookkeepers'), 'no such user'],
        [userGroupUrl('carol', 'no-such-group'), 'no such group'],
      ] as const;
      for (const [url, description] of cases) {
        for (const method of ['PUT', 'DELETE'] as const) {
          const response = await t.admin.request(method, url);
          expectAdminError(response, 404, 'not_found');
          expect(response.json().error_description).toBe(description);
        }
      }
      expect({ roles: await count('user_roles'), groups: await count('user_groups') }).toEqual(before);
    });

    it('keeps realms apart: a role or group of another realm is unknown here', async () => {
      await putRole('auditor', {}, 'other');
      await putGroup('bookkeepers', {}, 'other');
      await createUser(t.admin, 'other', 'carol');
      // The other realm's carol is not this realm's, and this realm's roles are not the other's.
      expect(await userOf('carol', 'other')).toMatchObject({ roles: [], groups: [], effective_roles: [] });
      await putRole('here-only');
      expectAdminError(await t.admin.request('PUT', userRoleUrl('carol', 'here-only', 'other')), 404, 'not_found');
      expect204(await t.admin.request('PUT', userRoleUrl('carol', 'auditor', 'other')));
      expect(await userOf('carol', 'other')).toMatchObject({ roles: ['auditor'], effective_roles: ['auditor'] });
      expect((await userOf('carol')).roles).toEqual(['auditor', 'ledger:read']);
    });
  });

  describe('deletion', () => {
    it('deleting a role takes it from every group and person at once, as Keycloak does', async () => {
      await putRole('temp');
      await putRole('kept');
      await putGroup('temps', { roles: ['temp', 'kept'] });
      await createUser(t.admin, realm, 'frank');
      expect204(await t.admin.request('PUT', userRoleUrl('frank', 'temp')));
      expect204(await t.admin.request('PUT', userGroupUrl('frank', 'temps')));

      expect204(await t.admin.request('DELETE', roleUrl('temp')));
      expectAdminError(await t.admin.request('GET', roleUrl('temp')), 404, 'not_found');
      expect(await getJson(groupUrl('temps'))).toMatchObject({ roles: ['kept'] });
      expect(await userOf('frank')).toMatchObject({ roles: [], groups: ['temps'], effective_roles: ['kept'] });
      const dangling = await t.store.db.query(
        "SELECT 1 FROM group_roles WHERE realm = $1 AND role = 'temp' UNION ALL SELECT 1 FROM user_roles WHERE realm = $1 AND role = 'temp'",
        [realm],
      );
      expect(dangling.rows).toEqual([]);
      // A role of the same name made again is a new role: no one holds it.
      await putRole('temp');
      expect((await userOf('frank')).effective_roles).toEqual(['kept']);
    });

    it('deleting a group takes its members out; deleting a person removes their roles and groups', async () => {
      await putGroup('short-lived', { roles: ['kept'] });
      await createUser(t.admin, realm, 'grace');
      expect204(await t.admin.request('PUT', userGroupUrl('grace', 'short-lived')));
      expect204(await t.admin.request('PUT', userRoleUrl('grace', 'kept')));
      expect204(await t.admin.request('DELETE', groupUrl('short-lived')));
      expect(await userOf('grace')).toMatchObject({ roles: ['kept'], groups: [], effective_roles: ['kept'] });

      const sub = (await userOf('grace')).sub as string;
      expect204(await t.admin.request('DELETE', `/realms/${realm}/users/grace`));
      const left = await t.store.db.query('SELECT 1 FROM user_roles WHERE user_id = $1 UNION ALL SELECT 1 FROM user_groups WHERE user_id = $1', [sub]);
      expect(left.rows).toEqual([]);
      expect(await getJson(roleUrl('kept'))).toEqual({ name: 'kept', description: '' });
    });

    it('a role deleted while it is being given to people and groups leaves no link to it, and no answer is a 500', async () => {
      await createUser(t.admin, realm, 'ivan');
      await createUser(t.admin, realm, 'judy');
      for (let round = 0; round < 8; round++) {
        expect((await putRole('racing')).statusCode).toBe(201);
        const answers = await Promise.all([
          t.admin.request('PUT', userRoleUrl('ivan', 'racing')),
          putGroup('racers', { roles: ['racing'] }),
          t.admin.request('DELETE', roleUrl('racing')),
          t.admin.request('PUT', userRoleUrl('judy', 'racing')),
        ]);
        for (const answer of answers) expect([200, 201, 204, 400, 404], answer.body).toContain(answer.statusCode);
        const links = await t.store.db.query(
          "SELECT 1 FROM group_roles WHERE realm = $1 AND role = 'racing' UNION ALL SELECT 1 FROM user_roles WHERE realm = $1 AND role = 'racing'",
          [realm],
        );
        expect(links.rows).toEqual([]);
      }
    });

    it('deleting the realm deletes its roles and groups', async () => {
      await t.admin.createRealm('doomed');
      await putRole('r', {}, 'doomed');
      await putGroup('g', { roles: ['r'] }, 'doomed');
      await createUser(t.admin, 'doomed', 'hank');
      expect204(await t.admin.request('PUT', userGroupUrl('hank', 'g', 'doomed')));
      expect204(await t.admin.request('DELETE', '/realms/doomed'));
      for (const table of ['roles', 'groups', 'group_roles', 'user_roles', 'user_groups'] as const) expect(await count(table, 'doomed')).toBe(0);
    });
  });
});
