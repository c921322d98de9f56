import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, codeFlowSetup, obtainCode } from '../support/flow.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

/**
 * `realmgate user list|disable|enable|sessions|sign-out` (CONTRACT.md §10) against a listening
 * server: the people a page at a time, a person's sessions made by a real sign-in, ended
 * everywhere, and a person disabled and enabled again.
 */
describe('realmgate commands of people', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let clientId: string;
  const cli = (args: string[]) => cliOk(args, { env });
  const refused = (args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    await t.admin.createRealm('shop');
    ({ clientId } = await codeFlowSetup(t.admin, 'shop', { claims: { name: 'Alice Liddell', email: 'alice@example.com' } }));
    await t.admin.request('POST', '/realms/shop/users', { username: 'bob', password: 'correct horse battery', claims: { email: 'bob@example.com' } });
  });

  afterAll(() => t?.close());

  it('user list: a table of the people in the order of their usernames, searched, a page at a time', async () => {
    expect(tableRows((await cli(['user', 'list', 'shop'])).stdout)).toEqual([
      expect.objectContaining({ USERNAME: 'alice', ENABLED: 'true', EMAIL: 'alice@example.com', NAME: 'Alice Liddell' }),
      expect.objectContaining({ USERNAME: 'bob', ENABLED: 'true', EMAIL: 'bob@example.com', NAME: '-' }),
    ]);
    expect(tableRows((await cli(['user', 'list', 'shop', '--search', 'BOB@'])).stdout).map((row) => row.USERNAME)).toEqual(['bob']);

    const first = await cli(['user', 'list', 'shop', '--limit', '1']);
    expect(tableRows(first.stdout).map((row) => row.USERNAME)).toEqual(['alice']);
    const next = /^More people: add --cursor (\S+)$/m.exec(first.stderr)![1]!;
    const second = JSON.parse((await cli(['user', 'list', 'shop', '--limit', '1', '--cursor', next, '--json'])).stdout) as { users: Array<{ username: string }>; next: string | null };
    expect(second).toEqual({ users: [expect.objectContaining({ username: 'bob' })], next: null });

    const wrong = await refused(['user', 'list', 'shop', '--limit', '0']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^realmgate: invalid_request: limit: must be 1 to 1000/);
  });

  it("user sessions shows the session of a sign-in; user sign-out ends it everywhere", async () => {
    await obtainCode(new TestBrowser(t.app, t.baseUrl), 'shop', { clientId, username: 'alice', password: 'correct horse battery' });
    const [sessions] = tableRows((await cli(['user', 'sessions', 'shop', 'alice'])).stdout);
    expect(sessions).toMatchObject({ AMR: 'pwd', CLIENTS: clientId });
    const json = JSON.parse((await cli(['user', 'sessions', 'shop', 'alice', '--json'])).stdout) as unknown;
    expect(json).toEqual((await t.admin.request('GET', '/realms/shop/users/alice/sessions')).json());

    expect((await cli(['user', 'sign-out', 'shop', 'alice'])).stdout).toBe('alice of shop is signed out everywhere.\n');
    expect((await t.admin.request('GET', '/realms/shop/users/alice/sessions')).json()).toEqual({ sessions: [] });
    expect(tableRows((await cli(['user', 'sessions', 'shop', 'alice'])).stdout)).toEqual([]);

    const nobody = await refused(['user', 'sessions', 'shop', 'nobody']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe('realmgate: not_found: no such user\n');
  });

  it('user disable and enable: the person signs in nowhere, then again', async () => {
    expect((await cli(['user', 'disable', 'shop', 'bob'])).stdout).toBe('bob of shop is disabled.\n');
    expect(fieldLines((await cli(['user', 'show', 'shop', 'bob'])).stdout).enabled).toBe('false');
    await expect(obtainCode(new TestBrowser(t.app, t.baseUrl), 'shop', { clientId, username: 'bob', password: 'correct horse battery' })).rejects.toThrow();

    const enabled = JSON.parse((await cli(['user', 'enable', 'shop', 'bob', '--json'])).stdout) as { enabled: boolean };
    expect(enabled.enabled).toBe(true);
    const signedIn = await obtainCode(new TestBrowser(t.app, t.baseUrl), 'shop', { clientId, username: 'bob', password: 'correct horse battery' });
    expect(signedIn.code).toEqual(expect.any(String));
  });
});
