import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { createUser } from '../support/users.js';
import { cliOk, runCli, tableRows } from './support.js';

/** `realmgate realm export|import` against a listening server (CONTRACT.md §10, docs/realms-as-data.md). */
describe('realmgate realm export and import', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let dir: string;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });
  const refused = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });
  const apiExport = async (realm: string, query = '') => (await t.admin.request('GET', `/realms/${realm}/export${query}`)).json() as Record<string, unknown>;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = await mkdtemp(join(tmpdir(), 'realmgate-realm-data-'));
    await t.admin.createRealm('shop', { access_token_lifetime: 600 });
    await t.admin.putScope('shop', 'orders:read');
    await t.admin.createClient('shop', { client_id: 'billing', grant_types: ['client_credentials'], scope: 'orders:read' });
    await t.admin.createClient('shop', { client_id: 'web', client_type: 'public', redirect_uris: ['https://shop.example/cb'], scope: 'openid orders:read' });
    await createUser(t.admin, 'shop', 'alice', { claims: { email: 'alice@example.com' } });
  });

  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are listed among the realm commands', async () => {
    const help = (await cli(['realm', '--help'])).stdout;
    expect(help).toMatch(/^ {2}export \[options\] <realm>/m);
    expect(help).toMatch(/^ {2}import \[options\] <realm> \[file\]/m);
  });

  it('export prints the admin API\'s document as JSON; --users adds the people, and says on stderr to keep it secret', async () => {
    const plain = await cli(['realm', 'export', 'shop']);
    expect(JSON.parse(plain.stdout)).toEqual(await apiExport('shop'));
    expect(plain.stderr).toBe('');
    const withPeople = await cli(['realm', 'export', 'shop', '--users']);
    const document = JSON.parse(withPeople.stdout) as { users: Array<{ username: string; password_hash: string }> };
    expect(document).toEqual(await apiExport('shop', '?users=true'));
    expect(document.users.map((user) => user.username)).toEqual(['alice']);
    expect(withPeople.stderr).toMatch(/password hashes .* keep it as a secret/);
  });

  it('import reads a file into a new realm, says what it did and which secrets to set; again, it changes nothing', async () => {
    const file = join(dir, 'shop.json');
    await writeFile(file, (await cli(['realm', 'export', 'shop', '--users'])).stdout);

    const first = await cli(['realm', 'import', 'shop-copy', file]);
    const [head, sections, secrets] = first.stdout.trimEnd().split('\n\n');
    expect(head).toBe('Realm shop-copy created.');
    expect(tableRows(sections!)).toContainEqual({ SECTION: 'clients', CREATED: '2', CHANGED: '0', DELETED: '0', UNCHANGED: '0' });
    expect(secrets).toBe('Without a secret yet (a document never carries one):\n  client billing: realmgate client rotate-secret shop-copy billing');
    expect(await apiExport('shop-copy', '?users=true')).toEqual({ ...(await apiExport('shop', '?users=true')), realm: 'shop-copy' });

    const again = await cli(['realm', 'import', 'shop-copy', file, '--json']);
    const summary = JSON.parse(again.stdout) as { realm_created: boolean; sections: Record<string, { created: string[]; changed: string[]; deleted: string[] }> };
    expect(summary.realm_created).toBe(false);
    for (const done of Object.values(summary.sections)) expect(done).toMatchObject({ created: [], changed: [], deleted: [] });

    // The secret the summary names: the command it prints gives the client one.
    const rotated = await cli(['client', 'rotate-secret', 'shop-copy', 'billing', '--json']);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ client_id: 'billing', client_secret: expect.any(String) });
    expect(JSON.parse((await cli(['realm', 'import', 'shop-copy', file, '--json'])).stdout).secrets_to_set).toEqual({ clients: [], identity_providers: [] });
  });

  it('import reads standard input when the file is - or left out; --prune deletes what the document leaves out', async () => {
    const document = JSON.parse((await cli(['realm', 'export', 'shop'])).stdout) as { clients: Array<{ client_id: string }> };
    expect((await cli(['realm', 'import', 'piped', '-'], JSON.stringify(document))).stdout).toMatch(/^Realm piped created\./);
    const smaller = { clients: document.clients.filter((client) => client.client_id === 'web') };
    const kept = await cli(['realm', 'import', 'piped'], JSON.stringify(smaller));
    expect(kept.stdout).toMatch(/^Realm piped imported\.\n/);
    expect((await t.admin.request('GET', '/realms/piped/clients/billing')).statusCode).toBe(200);
    const pruned = await cli(['realm', 'import', 'piped', '--prune'], JSON.stringify(smaller));
    expect(pruned.stdout).toMatch(/^Realm piped imported \(pruned\)\./);
    expect(tableRows(pruned.stdout.split('\n\n')[1]!)).toEqual([{ SECTION: 'clients', CREATED: '0', CHANGED: '0', DELETED: '1', UNCHANGED: '1' }]);
    expect((await t.admin.request('GET', '/realms/piped/clients/billing')).statusCode).toBe(404);
  });

  it('says why a document is refused: the server naming the field, a file that is not JSON, a file that is not there', async () => {
    const bad = await refused(['realm', 'import', 'shop'], JSON.stringify({ clients: [{ client_id: 'x', redirect_uris: ['not-a-uri'] }] }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('realmgate: invalid_request: clients.0.redirect_uris.0: must be an absolute URI\n');
    expect((await t.admin.request('GET', '/realms/shop/clients/x')).statusCode).toBe(404);

    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '{"clients": ');
    const garbled = await refused(['realm', 'import', 'shop', notJson]);
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toMatch(/^realmgate: .*not\.json is not JSON/);

    const missing = await refused(['realm', 'import', 'shop', join(dir, 'missing.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^realmgate: cannot read .*missing\.json \(ENOENT\)/);

    const unknown = await refused(['realm', 'export', 'nowhere']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('realmgate: not_found: no such realm\n');
  });
});
