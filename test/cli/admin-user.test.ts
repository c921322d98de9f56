import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { clientCredentials } from '../support/oauth.js';
import { passwordGrant } from '../support/users.js';
import { cliOk, fieldLines, runCli } from './support.js';

/**
 * `realmgate user create root <username> --admin` (issue 36, item 6): a person of `root` with
 * `realmgate-admin`, who then administers with their own token; made only by a holder of
 * `realmgate-admin` (or ADMIN_TOKEN), and only in `root`.
 */
describe('realmgate user create --admin', () => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  afterAll(() => t?.close());

  it('makes a person of root holding realmgate-admin, whose own token administers everything', async () => {
    const made = await cliOk(['user', 'create', 'root', 'ann', '--admin', '--password-stdin'], { env, input: 'a long passphrase of ann\n' });
    expect(fieldLines(made.stdout)).toMatchObject({ username: 'ann', roles: 'realmgate-admin', effective_roles: 'realmgate-admin' });

    const created = await t.admin.createClient('root', { grant_types: ['password'] });
    const client = { clientId: created.client_id, secret: created.client_secret as string };
    const token = await passwordGrant(t.app, 'root', client, { username: 'ann', password: 'a long passphrase of ann' }, { resource: `${t.baseUrl}/admin` });
    expect(token.statusCode, token.body).toBe(200);
    const realm = await t.app.inject({
      method: 'POST',
      url: '/admin/realms',
      headers: { authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` },
      payload: { name: 'made-by-ann' },
    });
    expect(realm.statusCode, realm.body).toBe(201);
  });

  it('is refused outside root, before any request', async () => {
    const result = await runCli(['user', 'create', 'acme', 'ann', '--admin', '--password-stdin'], { env, input: 'a long passphrase of ann\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('realmgate: --admin: administrators are people of the root realm\n');
  });

  it('is refused to an admin of root who is not realmgate-admin, and makes nobody', async () => {
    const created = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles: ['realmgate-admin:root'] });
    const answer = await clientCredentials(t.app, 'root', { clientId: created.client_id, secret: created.client_secret as string }, { resource: `${t.baseUrl}/admin` });
    const rootAdmin = (answer.json() as { access_token: string }).access_token;
    const result = await runCli(['user', 'create', 'root', 'mallory', '--admin', '--password-stdin'], {
      env: { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: rootAdmin },
      input: 'a long passphrase of mallory\n',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^realmgate: forbidden: /);
    expect((await t.admin.request('GET', '/realms/root/users/mallory')).statusCode).toBe(404);
  });
});
