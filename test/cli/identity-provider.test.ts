import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_CLIENT, Upstream, appClient, callbackOf, exchange, returnFromProvider, startAtProvider } from '../identity-providers/support.js';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, location } from '../support/flow.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

const REALM = 'shop';

/**
 * `realmgate identity-provider list|get|create|update|delete` against a listening server
 * (CONTRACT.md §10), with node-oidc-provider as the upstream: the secret piped to the command
 * is the one the broker then authenticates with, and it is never printed.
 */
describe('realmgate identity-provider commands', () => {
  let t: TestApp;
  let upstream: Upstream;
  let env: Record<string, string>;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });
  const refused = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });
  const sealed = async () => (await t.store.identityProviders.get(REALM, 'up'))!.sealedSecret;

  /** A person signing in at the realm through the provider: the ID token's username, or the page that says why not. */
  async function signInThroughProvider(): Promise<{ username?: unknown; page?: string }> {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const clientId = await appClient(t, REALM);
    const started = await startAtProvider(browser, REALM, clientId);
    const back = await returnFromProvider(browser, await upstream.browse(location(started.response)));
    if (!back.code) return { page: back.page?.body };
    return { username: (await exchange(t, REALM, clientId, back.code, started.verifier)).idToken.preferred_username };
  }

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true, outboundAllow: ['127.0.0.1'] }), buildOnce()]);
    upstream = await Upstream.start([callbackOf(REALM, 'up', t.baseUrl)]);
    upstream.accounts.set('up-erin', { preferred_username: 'erin', email: 'erin@corp.example', email_verified: true });
    upstream.nextAccount = 'up-erin';
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    await t.admin.createRealm(REALM);
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('is listed among the commands', async () => {
    expect((await cli(['--help'])).stdout).toMatch(/^  identity-provider\b/m);
  });

  it('create reads the secret from standard input, prints the record and the redirect URI to register, never the secret; a person signs in with it', async () => {
    const created = await cli(
      ['identity-provider', 'create', REALM, 'up', '--issuer', upstream.issuer, '--client-id', UPSTREAM_CLIENT.id, '--client-secret-stdin', '--display-name', 'Corp account'],
      `${UPSTREAM_CLIENT.secret}\n`,
    );
    const record = fieldLines(created.stdout);
    expect(record).toMatchObject({
      alias: 'up',
      display_name: 'Corp account',
      issuer: upstream.issuer,
      client_id: UPSTREAM_CLIENT.id,
      redirect_uri: callbackOf(REALM, 'up', t.baseUrl),
      scope: 'openid email profile',
      username_claim: 'preferred_username',
      link_by_verified_email: 'false',
    });
    expect(created.stderr).toBe(`Register ${callbackOf(REALM, 'up', t.baseUrl)} as a redirect URI of client ${UPSTREAM_CLIENT.id} at the provider.\n`);
    expect(created.stdout + created.stderr).not.toContain(UPSTREAM_CLIENT.secret);
    expect(record).not.toHaveProperty('client_secret');

    expect(await signInThroughProvider()).toEqual({ username: 'erin' });
  });

  it('list and get: a table, the record, and with --json the admin API answer as it is (no secret in any)', async () => {
    const [list, got, json] = await Promise.all([
      cli(['identity-provider', 'list', REALM]),
      cli(['identity-provider', 'get', REALM, 'up']),
      cli(['identity-provider', 'show', REALM, 'up', '--json']),
    ]);
    expect(tableRows(list.stdout)).toEqual([
      { ALIAS: 'up', DISPLAY_NAME: 'Corp account', ISSUER: upstream.issuer, CLIENT_ID: UPSTREAM_CLIENT.id, LINK_BY_VERIFIED_EMAIL: 'false' },
    ]);
    expect(got.stdout.split('\n')[0]).toMatch(/^alias\s+up$/);
    const answer = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(answer).toEqual((await t.admin.request('GET', `/realms/${REALM}/identity-providers/up`)).json());
    for (const out of [list.stdout, got.stdout, json.stdout]) expect(out).not.toContain(UPSTREAM_CLIENT.secret);
  });

  it('update changes only what it names: without a secret the stored one stays; a new one replaces it', async () => {
    const before = await sealed();
    const changed = await cli(['identity-provider', 'update', REALM, 'up', '--display-name', 'Corp', '--link-by-verified-email', 'username_claim=email']);
    expect(fieldLines(changed.stdout)).toMatchObject({ display_name: 'Corp', link_by_verified_email: 'true', username_claim: 'email', issuer: upstream.issuer });
    expect((await sealed()).equals(before)).toBe(true);

    const cleared = JSON.parse((await cli(['identity-provider', 'update', REALM, 'up', 'display_name=null', '--no-link-by-verified-email', '--json'])).stdout) as Record<string, unknown>;
    expect(cleared).not.toHaveProperty('display_name');
    expect(cleared).toMatchObject({ link_by_verified_email: false, username_claim: 'email' });

    // A wrong secret: the provider refuses the broker's code exchange, and the person is told.
    const wrong = await cli(['identity-provider', 'update', REALM, 'up', '--client-secret', 'not-the-upstream-secret']);
    expect(wrong.stdout).not.toContain('not-the-upstream-secret');
    expect((await sealed()).equals(before)).toBe(false);
    const failed = await signInThroughProvider();
    expect(failed.username).toBeUndefined();
    expect(failed.page).toBeDefined();

    await cli(['identity-provider', 'update', REALM, 'up', '--client-secret-stdin'], UPSTREAM_CLIENT.secret);
    expect(await signInThroughProvider()).toEqual({ username: 'erin' });
  });

  it('says why a command is refused, and changes nothing: a missing secret, a secret as field=value, the server naming the field', async () => {
    const noSecret = await refused(['identity-provider', 'create', REALM, 'other', '--issuer', upstream.issuer, '--client-id', 'x']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^realmgate: the realm's client secret at the provider is needed: pipe it in with --client-secret-stdin/);

    const asArgument = await refused(['identity-provider', 'create', REALM, 'other', '--issuer', upstream.issuer, '--client-id', 'x', 'client_secret=visible']);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toMatch(/^realmgate: the client secret goes in --client-secret-stdin/);
    expect(asArgument.stderr).not.toContain('visible');

    const twice = await refused(['identity-provider', 'create', REALM, 'other', '--client-secret-stdin', '--client-secret', 'x'], 'y');
    expect(twice.code).toBe(2);

    const http = await refused(['identity-provider', 'create', REALM, 'other', '--issuer', 'http://idp.example', '--client-id', 'x', '--client-secret-stdin'], 'a-secret');
    expect(http.code).toBe(1);
    expect(http.stderr).toMatch(/^realmgate: invalid_request: issuer: must be an https URL without query or fragment/);
    expect(http.stderr).not.toContain('a-secret');

    const nothing = await refused(['identity-provider', 'update', REALM, 'up']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^realmgate: name at least one field to change/);
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/other`)).statusCode).toBe(404);
  });

  it('delete removes the provider and its button; a second delete is not_found', async () => {
    const deleted = await cli(['identity-provider', 'delete', REALM, 'up']);
    expect(deleted.stdout).toBe(`Identity provider up of ${REALM} deleted.\n`);
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/up`)).statusCode).toBe(404);
    const again = await refused(['identity-provider', 'delete', REALM, 'up']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('realmgate: not_found: no such identity provider\n');
    expect(tableRows((await cli(['identity-provider', 'list', REALM])).stdout)).toEqual([]);
  });
});
