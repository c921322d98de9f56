import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

/**
 * The commands that change and delete what the admin API holds, and those of the resources
 * beside realms, clients and users: `realm delete`, `client update|delete`, `user
 * update|delete`, `scope`, `trusted-issuer`, `initial-access-token` and `events`, against a
 * listening server, each checked by what the server then holds or does.
 */
describe('realmgate commands that change and delete', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let dir: string;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });
  const refused = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });
  const adminGet = async (path: string) => (await t.admin.request('GET', path)).json() as Record<string, unknown>;
  const status = async (path: string) => (await t.admin.request('GET', path)).statusCode;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = await mkdtemp(join(tmpdir(), 'realmgate-cli-'));
    await t.admin.createRealm('shop');
  });

  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists every resource among the commands', async () => {
    const help = (await cli(['--help'])).stdout;
    for (const command of ['realm', 'client', 'user', 'scope', 'role', 'group', 'resource', 'keys', 'journey', 'identity-provider', 'trusted-issuer', 'initial-access-token', 'events']) {
      expect(help, command).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  it('realm delete deletes a realm with what it holds; the root realm is refused with the reason', async () => {
    await t.admin.createRealm('short-lived');
    await t.admin.createClient('short-lived', { client_id: 'gone-with-it', grant_types: ['client_credentials'] });
    const deleted = await cli(['realm', 'delete', 'short-lived']);
    expect(deleted.stdout).toBe('Realm short-lived deleted.\n');
    expect(await status('/realms/short-lived')).toBe(404);
    expect(tableRows((await cli(['realm', 'list'])).stdout).map((row) => row.NAME)).not.toContain('short-lived');

    const root = await refused(['realm', 'delete', 'root']);
    expect(root.code).toBe(1);
    expect(root.stderr).toBe('realmgate: conflict: the root realm always exists and cannot be deleted\n');
  });

  it('client update changes only what it names (options, field=value, null clearing a field); a new secret is shown once; client delete', async () => {
    const created = await t.admin.createClient('shop', { client_id: 'billing', client_name: 'Billing', grant_types: ['client_credentials'] });
    const changed = await cli(['client', 'update', 'shop', 'billing', '--name', 'Invoices', '--grant-type', 'client_credentials', '--grant-type', 'refresh_token', 'introspect_any_token=true', 'journey=null']);
    expect(fieldLines(changed.stdout)).toMatchObject({ client_id: 'billing', client_name: 'Invoices', grant_types: 'client_credentials refresh_token', introspect_any_token: 'true' });
    expect(changed.stderr).toBe('');
    expect(await adminGet('/realms/shop/clients/billing')).toMatchObject({ client_name: 'Invoices', introspect_any_token: true, token_endpoint_auth_method: 'client_secret_basic' });
    expect((await postForm(t.app, `${realmPath('shop')}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic('billing', created.client_secret!) })).statusCode).toBe(200);

    // A public client made confidential gets a secret, shown this once.
    await t.admin.createClient('shop', { client_id: 'spa', client_type: 'public', redirect_uris: ['https://app.example/cb'] });
    const confidential = await cli(['client', 'update', 'shop', 'spa', 'client_type=confidential', 'token_endpoint_auth_method=client_secret_basic']);
    expect(fieldLines(confidential.stdout).client_secret).toMatch(/^[\w-]{43}$/);
    expect(confidential.stderr).toMatch(/secret is shown this once/);

    const both = await refused(['client', 'update', 'shop', 'billing', '--name', 'A', 'client_name=B']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('realmgate: client_name is given both as an option and as client_name=value\n');
    const none = await refused(['client', 'update', 'shop', 'billing']);
    expect(none.code).toBe(2);
    const wrong = await refused(['client', 'update', 'shop', 'billing', 'grant_types=["teleport"]']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^realmgate: invalid_request: grant_types/);
    expect((await adminGet('/realms/shop/clients/billing')).client_name).toBe('Invoices');

    const deleted = await cli(['client', 'delete', 'shop', 'billing']);
    expect(deleted.stdout).toBe('Client billing of shop deleted.\n');
    expect(await status('/realms/shop/clients/billing')).toBe(404);
    expect((await postForm(t.app, `${realmPath('shop')}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic('billing', created.client_secret!) })).statusCode).toBe(401);
    const again = await refused(['client', 'delete', 'shop', 'billing']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('realmgate: not_found: no such client\n');
  });

  it('user update merges claims (null removes one); user delete; get is show', async () => {
    await t.admin.request('POST', '/realms/shop/users', { username: 'alice', password: 'correct horse battery', claims: { name: 'Alice', nickname: 'al' } });
    const changed = await cli(['user', 'update', 'shop', 'alice', 'email=alice@example.com', 'email_verified=true', 'nickname=null']);
    expect(JSON.parse(fieldLines(changed.stdout).claims!)).toEqual({ name: 'Alice', email: 'alice@example.com', email_verified: true });
    expect((await adminGet('/realms/shop/users/alice')).claims).toEqual({ name: 'Alice', email: 'alice@example.com', email_verified: true });
    expect(JSON.parse((await cli(['user', 'get', 'shop', 'alice', '--json'])).stdout)).toEqual(await adminGet('/realms/shop/users/alice'));

    const reserved = await refused(['user', 'update', 'shop', 'alice', 'sub=someone']);
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toMatch(/^realmgate: invalid_request: claims\.sub: is set by the server/);

    const deleted = await cli(['user', 'delete', 'shop', 'alice']);
    expect(deleted.stdout).toBe('User alice of shop deleted.\n');
    expect(await status('/realms/shop/users/alice')).toBe(404);
  });

  it('scope put, list, get and delete; a built-in scope, or one a client lists, is refused', async () => {
    const put = await cli(['scope', 'put', 'shop', 'orders:read', 'Read your orders']);
    expect(fieldLines(put.stdout)).toMatchObject({ name: 'orders:read', description: 'Read your orders' });
    await cli(['scope', 'put', 'shop', 'orders:read', 'Read your orders and returns']);
    expect(await adminGet('/realms/shop/scopes/orders:read')).toMatchObject({ description: 'Read your orders and returns' });
    expect(tableRows((await cli(['scope', 'list', 'shop'])).stdout)).toContainEqual({ NAME: 'orders:read', DESCRIPTION: 'Read your orders and returns', CLAIMS: '-' });
    expect(JSON.parse((await cli(['scope', 'get', 'shop', 'orders:read', '--json'])).stdout)).toEqual(await adminGet('/realms/shop/scopes/orders:read'));

    await t.admin.createClient('shop', { client_id: 'reader', grant_types: ['client_credentials'], scope: 'orders:read' });
    const inUse = await refused(['scope', 'delete', 'shop', 'orders:read']);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toBe('realmgate: conflict: the scope is used by clients: reader\n');
    const builtIn = await refused(['scope', 'delete', 'shop', 'openid']);
    expect(builtIn.stderr).toBe('realmgate: conflict: openid exists in every realm and cannot be deleted\n');

    await cli(['client', 'update', 'shop', 'reader', '--scope', '']);
    expect((await cli(['scope', 'delete', 'shop', 'orders:read'])).stdout).toBe('Scope orders:read of shop deleted.\n');
    expect(await status('/realms/shop/scopes/orders:read')).toBe(404);
  });

  it('trusted-issuer create from a JWKS file, list, get, update (null admits every client again) and delete', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'idp-1' }] };
    const file = join(dir, 'jwks.json');
    await writeFile(file, JSON.stringify(jwks));

    const created = JSON.parse(
      (await cli(['trusted-issuer', 'create', 'shop', '--kind', 'jwt', '--issuer', 'https://idp.example', '--jwks-file', file, '--client-id', 'reader', '--json'])).stdout,
    ) as { id: string };
    expect(created).toMatchObject({ kind: 'jwt', issuer: 'https://idp.example', jwks, subject_mapping: 'username', client_ids: ['reader'] });
    expect(tableRows((await cli(['trusted-issuer', 'list', 'shop'])).stdout)).toEqual([
      { ID: created.id, KIND: 'jwt', ISSUER: 'https://idp.example', SUBJECT: 'username', CLIENTS: 'reader', TRUSTED_BY: 'jwks (1)' },
    ]);
    expect(fieldLines((await cli(['trusted-issuer', 'get', 'shop', created.id])).stdout)).toMatchObject({ id: created.id, issuer: 'https://idp.example' });

    const changed = await cli(['trusted-issuer', 'update', 'shop', created.id, '--subject-mapping', 'email', 'client_ids=null']);
    expect(fieldLines(changed.stdout)).toMatchObject({ subject_mapping: 'email' });
    const stored = await adminGet(`/realms/shop/trusted-issuers/${created.id}`);
    expect(stored).toMatchObject({ subject_mapping: 'email', jwks });
    expect(stored).not.toHaveProperty('client_ids');

    const both = await refused(['trusted-issuer', 'update', 'shop', created.id, '--jwks-uri', 'https://idp.example/jwks']);
    expect(both.code).toBe(1);
    expect(both.stderr).toBe('realmgate: invalid_request: jwks: give jwks or jwks_uri, exactly one\n');
    const kind = await refused(['trusted-issuer', 'create', 'shop', '--kind', 'oidc', '--issuer', 'x']);
    expect(kind.code).toBe(2);

    expect((await cli(['trusted-issuer', 'delete', 'shop', created.id])).stdout).toBe(`Trusted issuer ${created.id} of shop deleted.\n`);
    expect(await status(`/realms/shop/trusted-issuers/${created.id}`)).toBe(404);
  });

  it('resource put (name and scopes kept when left out, cleared with --no-name and --no-scopes), list, get and delete', async () => {
    await t.admin.putScope('shop', 'orders:write');
    const identifier = 'https://orders.example/';
    const put = await cli(['resource', 'put', 'shop', identifier, '--name', 'Orders API', '--scope', 'orders:write']);
    expect(fieldLines(put.stdout)).toEqual({ identifier, name: 'Orders API', scopes: 'orders:write' });
    expect(tableRows((await cli(['resource', 'list', 'shop'])).stdout)).toEqual([{ IDENTIFIER: identifier, NAME: 'Orders API', SCOPES: 'orders:write' }]);
    await cli(['resource', 'put', 'shop', identifier]);
    expect(JSON.parse((await cli(['resource', 'get', 'shop', identifier, '--json'])).stdout)).toEqual({ identifier, name: 'Orders API', scopes: ['orders:write'] });
    await cli(['resource', 'put', 'shop', identifier, '--no-name', '--no-scopes']);
    expect(tableRows((await cli(['resource', 'list', 'shop'])).stdout)).toEqual([{ IDENTIFIER: identifier, NAME: '-', SCOPES: 'any' }]);

    const unknown = await refused(['resource', 'put', 'shop', identifier, '--scope', 'nothing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('realmgate: invalid_request: scopes: no such scope in the realm: nothing\n');
    const fragment = await refused(['resource', 'put', 'shop', 'https://orders.example/#part']);
    expect(fragment.code).toBe(1);
    expect(fragment.stderr).toMatch(/^realmgate: invalid_request: identifier: /);

    expect((await cli(['resource', 'delete', 'shop', identifier])).stdout).toBe(`Resource ${identifier} of shop deleted.\n`);
    expect((await t.admin.request('GET', '/realms/shop/resources')).json()).toEqual([]);
    const gone = await refused(['resource', 'get', 'shop', identifier]);
    expect(gone.stderr).toBe('realmgate: not_found: no such resource\n');
  });

  it('initial-access-token create: the token shown once, good for one registration beyond the realm policy', async () => {
    const issued = await cli(['initial-access-token', 'create', 'shop', '--expires-in', '600', '--grant-type', 'client_credentials']);
    const { token, expires_in: expiresIn } = fieldLines(issued.stdout);
    expect(expiresIn).toBe('600');
    expect(issued.stderr).toMatch(/shown this once/);
    const register = () =>
      fetch(`${t.baseUrl}${realmPath('shop')}/connect/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: ['client_credentials'] }),
      });
    expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(401);

    const wrong = await refused(['initial-access-token', 'create', 'shop', '--expires-in', 'soon']);
    expect(wrong.code).toBe(2);
    const tooLong = await refused(['initial-access-token', 'create', 'shop', '--expires-in', '99999999']);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/^realmgate: invalid_request: expires_in/);
  });

  it('events list: newest first, filtered by type, a page at a time with --before', async () => {
    const all = JSON.parse((await cli(['events', 'list', 'shop', '--json'])).stdout) as { events: Array<{ type: string }>; next: string | null };
    expect(all.events.map((event) => event.type)).toEqual(expect.arrayContaining(['client.deleted', 'user.deleted', 'scope.deleted', 'trusted_issuer.deleted']));

    const deletions = tableRows((await cli(['events', 'list', 'shop', '--type', 'client.deleted', '--type', 'user.deleted'])).stdout);
    expect(deletions.map((row) => row.TYPE)).toEqual(['user.deleted', 'client.deleted']);
    expect(deletions[1]!.CLIENT_ID).toBe('billing');

    const first = await cli(['events', 'list', 'shop', '--limit', '1']);
    expect(tableRows(first.stdout)).toHaveLength(1);
    const next = /^More events: add --before (\S+)$/m.exec(first.stderr)![1]!;
    const second = JSON.parse((await cli(['events', 'list', 'shop', '--limit', '1', '--before', next, '--json'])).stdout) as { events: Array<{ id: string }> };
    expect(second.events[0]!.id).toBe((all.events[1] as unknown as { id: string }).id);

    const bad = await refused(['events', 'list', 'shop', '--type', 'no.such_event']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^realmgate: invalid_request: type: is not an audit event type/);
  });
});
