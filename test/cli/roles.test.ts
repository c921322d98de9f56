import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

/**
 * `realmgate role`, `group`, the user's `grant-role|revoke-role|join-group|leave-group` and
 * `scope put --claims` (CONTRACT.md §10) against a listening server: what they store, and the
 * roles a token then carries.
 */
describe('realmgate role, group and membership commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });
  const refused = (args: string[]) => runCli(args, { env });
  const adminGet = async (path: string) => (await t.admin.request('GET', path)).json() as Record<string, unknown>;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    await t.admin.createRealm('shop');
    await t.admin.request('POST', '/realms/shop/users', { username: 'alice', password: 'correct horse battery' });
  });

  afterAll(() => t?.close());

  it('role put, list, get and delete', async () => {
    expect(fieldLines((await cli(['role', 'put', 'shop', 'orders:write', 'Change orders'])).stdout)).toEqual({ name: 'orders:write', description: 'Change orders' });
    await cli(['role', 'put', 'shop', 'orders:read']);
    await cli(['role', 'put', 'shop', 'temporary', 'Soon gone']);
    expect(tableRows((await cli(['role', 'list', 'shop'])).stdout)).toEqual([
      { NAME: 'orders:read', DESCRIPTION: '-' },
      { NAME: 'orders:write', DESCRIPTION: 'Change orders' },
      { NAME: 'temporary', DESCRIPTION: 'Soon gone' },
    ]);
    // A description left out keeps the stored one.
    await cli(['role', 'put', 'shop', 'orders:write']);
    expect(JSON.parse((await cli(['role', 'get', 'shop', 'orders:write', '--json'])).stdout)).toEqual({ name: 'orders:write', description: 'Change orders' });

    expect((await cli(['role', 'delete', 'shop', 'temporary'])).stdout).toBe('Role temporary of shop deleted.\n');
    expect((await t.admin.request('GET', '/realms/shop/roles/temporary')).statusCode).toBe(404);
    const bad = await refused(['role', 'put', 'shop', '-bad']);
    expect(bad.code).toBe(2); // a leading - reads as an option
    const invalid = await refused(['role', 'put', 'shop', 'no spaces']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^realmgate: invalid_request: role: must be 1 to 128 letters/);
  });

  it('group put with its roles (replaced when given, kept when not, none with --no-roles), list, get, delete', async () => {
    const put = await cli(['group', 'put', 'shop', 'clerks', '--description', 'The shop floor', '--role', 'orders:read', '--role', 'orders:write']);
    expect(fieldLines(put.stdout)).toMatchObject({ name: 'clerks', description: 'The shop floor', roles: 'orders:read orders:write' });
    await cli(['group', 'put', 'shop', 'clerks', '--description', 'Everyone at the till']);
    expect(await adminGet('/realms/shop/groups/clerks')).toMatchObject({ description: 'Everyone at the till', roles: ['orders:read', 'orders:write'] });
    await cli(['group', 'put', 'shop', 'visitors', '--role', 'orders:read']);
    expect(tableRows((await cli(['group', 'list', 'shop'])).stdout)).toEqual([
      { NAME: 'clerks', ROLES: 'orders:read orders:write', DESCRIPTION: 'Everyone at the till' },
      { NAME: 'visitors', ROLES: 'orders:read', DESCRIPTION: '-' },
    ]);
    await cli(['group', 'put', 'shop', 'visitors', '--no-roles']);
    expect(JSON.parse((await cli(['group', 'get', 'shop', 'visitors', '--json'])).stdout)).toMatchObject({ name: 'visitors', roles: [] });

    const unknown = await refused(['group', 'put', 'shop', 'visitors', '--role', 'nothing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('realmgate: invalid_request: roles: no such role in the realm: nothing\n');
    const both = await refused(['group', 'put', 'shop', 'visitors', '--role', 'orders:read', '--no-roles']);
    expect(both.code).toBe(2);
    expect((await cli(['group', 'delete', 'shop', 'visitors'])).stdout).toBe('Group visitors of shop deleted.\n');
    expect((await t.admin.request('GET', '/realms/shop/groups/visitors')).statusCode).toBe(404);
  });

  it("a person's roles and groups: granted, joined, shown with the roles they hold, then revoked and left", async () => {
    expect((await cli(['user', 'grant-role', 'shop', 'alice', 'orders:read'])).stdout).toBe('alice of shop now holds the role orders:read.\n');
    expect((await cli(['user', 'join-group', 'shop', 'alice', 'clerks'])).stdout).toBe('alice of shop is now in the group clerks.\n');
    const shown = fieldLines((await cli(['user', 'show', 'shop', 'alice'])).stdout);
    expect(shown).toMatchObject({ roles: 'orders:read', groups: 'clerks', effective_roles: 'orders:read orders:write' });

    const missing = await refused(['user', 'grant-role', 'shop', 'alice', 'nothing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('realmgate: not_found: no such role\n');
    const nobody = await refused(['user', 'join-group', 'shop', 'nobody', 'clerks']);
    expect(nobody.stderr).toBe('realmgate: not_found: no such user\n');

    expect((await cli(['user', 'leave-group', 'shop', 'alice', 'clerks'])).stdout).toBe('alice of shop is no longer in the group clerks.\n');
    expect(await adminGet('/realms/shop/users/alice')).toMatchObject({ roles: ['orders:read'], groups: [], effective_roles: ['orders:read'] });
    const notHeld = await refused(['user', 'leave-group', 'shop', 'alice', 'clerks']);
    expect(notHeld.stderr).toBe('realmgate: not_found: no such group of this user\n');
  });

  it('scope put --claims maps the roles into the tokens of the scope; without --claims the claims stay; [] removes them', async () => {
    const claims = [{ name: 'roles', source: 'roles', tokens: ['introspection'] }];
    const put = await cli(['scope', 'put', 'shop', 'orders', 'Your orders', '--claims', JSON.stringify(claims)]);
    expect(fieldLines(put.stdout).claims).toBe('roles<-roles->introspection');
    expect(tableRows((await cli(['scope', 'list', 'shop'])).stdout)).toContainEqual({ NAME: 'orders', DESCRIPTION: 'Your orders', CLAIMS: 'roles<-roles->introspection' });

    const till = await t.admin.createClient('shop', { client_id: 'till', grant_types: ['password'], scope: 'orders', introspect_any_token: true });
    const auth = { authorization: basic('till', till.client_secret!) };
    const issued = await postForm(t.app, `${realmPath('shop')}/access_token`, { grant_type: 'password', username: 'alice', password: 'correct horse battery', scope: 'orders' }, auth);
    expect(issued.statusCode, issued.body).toBe(200);
    const token = (issued.json() as { access_token: string }).access_token;
    const introspected = (await postForm(t.app, `${realmPath('shop')}/introspect`, { token }, auth)).json() as Record<string, unknown>;
    expect(introspected).toMatchObject({ active: true, roles: ['orders:read'] });

    await cli(['scope', 'put', 'shop', 'orders', 'All your orders']);
    expect(await adminGet('/realms/shop/scopes/orders')).toEqual({ name: 'orders', description: 'All your orders', claims });
    const wrong = await refused(['scope', 'put', 'shop', 'orders', 'x', '--claims', '[{"name": "sub", "source": "username", "tokens": ["id_token"]}]']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^realmgate: invalid_request: claims\.0\.name: is set by the server/);
    const garbled = await refused(['scope', 'put', 'shop', 'orders', 'x', '--claims', '[{']);
    expect(garbled.code).toBe(2);
    await cli(['scope', 'put', 'shop', 'orders', 'All your orders', '--claims', '[]']);
    expect(await adminGet('/realms/shop/scopes/orders')).toEqual({ name: 'orders', description: 'All your orders' });
  });
});
