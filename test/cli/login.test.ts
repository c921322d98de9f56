import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../examples/http-browser.js';
import { type ProcessStore, type RunningServer, ServerProcess, admin, buildOnce, createProcessStore, postForm, startServer, stopAll } from '../support/process.js';
import { CLI, cliEnv, cliOk, runCli, tableRows } from './support.js';

/**
 * `realmgate login` against a real server process (CONTRACT.md §14): the device authorization
 * grant with the public client `realmgate-cli`, approved by a person of `root` signing in over
 * HTTP (ada, the first administrator, made from ADMIN_USER and ADMIN_PASSWORD); the admin
 * commands then act with the stored credentials (mode 0600), refreshed when
 * expired; ADMIN_TOKEN still wins; `logout` revokes, and the token is then refused.
 */

const ADMIN_TOKEN = 'cli-login-admin-token-0123456789';
const PASSWORD = 'a long passphrase of ada';

interface Credentials {
  server: string;
  access_token: string;
  refresh_token: string;
  expires_at: number;
}

describe('realmgate login and logout', () => {
  let store: ProcessStore;
  let server: RunningServer;
  let config: string;
  const env = () => ({ XDG_CONFIG_HOME: config });
  const credentialsFile = () => join(config, 'realmgate', 'credentials.json');
  const stored = () => JSON.parse(readFileSync(credentialsFile(), 'utf8')) as Credentials;

  /** Runs `realmgate login`, and answers its device code in a browser as `username`; the command's result. */
  async function login(username: string, decision: 'allow' | 'deny' = 'allow') {
    const cli = new ServerProcess(process.execPath, [CLI, 'login', '--server', server.baseUrl], cliEnv(env()));
    const deadline = Date.now() + 20_000;
    let address: string | undefined;
    let code: string | undefined;
    // The address and the code are two writes of the command: both are waited for.
    while (!(address && code) && Date.now() < deadline && !cli.exit) {
      address = /open (http\S+\?user_code=\S+)/.exec(cli.stderr)?.[1];
      code = /the code (\S+)/.exec(cli.stderr)?.[1];
      if (!(address && code)) await delay(50);
    }
    expect(address, cli.output).toBeDefined();
    expect(new URL(address!).searchParams.get('user_code')).toBe(code);
    expect(address!.startsWith(`${server.baseUrl}/oauth2/device/user`)).toBe(true);

    const browser = new HttpBrowser();
    const page = await browser.get(address!);
    const signIn = await browser.submit(page, { user_code: code! });
    expect(new URL(signIn.url).pathname, signIn.body).toBe('/oauth2/login');
    const consent = await browser.submit(signIn, { username, password: PASSWORD });
    expect(new URL(consent.url).pathname, consent.body).toBe('/oauth2/consent');
    expect(consent.body).toContain('realmgate command line');
    const done = await browser.submit(consent, { decision });
    expect(done.status).toBe(200);
    await cli.waitForExit(20_000);
    return cli;
  }

  beforeAll(async () => {
    [store] = await Promise.all([createProcessStore(), buildOnce()]);
    // Ada is the first administrator, made by the first start from ADMIN_USER and ADMIN_PASSWORD.
    server = await startServer({ ADMIN_TOKEN, ADMIN_USER: 'ada', ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'info', ...store.env }, { timeoutMs: 60_000 });
    config = mkdtempSync(join(tmpdir(), 'realmgate-config-'));
    await admin(server, ADMIN_TOKEN, 'PATCH', '/realms/root', { settings: { device_poll_interval: 1 } });
    await admin(server, ADMIN_TOKEN, 'POST', '/realms/root/users', { username: 'bert', password: PASSWORD });
    await admin(server, ADMIN_TOKEN, 'POST', '/realms', { name: 'acme' });
  }, 90_000);
  afterAll(async () => {
    await stopAll();
    await store?.dispose();
    if (config) rmSync(config, { recursive: true, force: true });
  });

  it('the client realmgate-cli exists from the first start: public, the device grant and refresh tokens', async () => {
    const client = await admin(server, ADMIN_TOKEN, 'GET', '/realms/root/clients/realmgate-cli');
    expect(client).toMatchObject({
      client_id: 'realmgate-cli',
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      redirect_uris: [],
    });
  });

  it('the first start made ada an administrator from ADMIN_USER, and logged it without the password', async () => {
    const ada = await admin<{ roles: string[] }>(server, ADMIN_TOKEN, 'GET', '/realms/root/users/ada');
    expect(ada.roles).toEqual(['realmgate-admin']);
    expect(server.process.stdout).toContain('first administrator made from ADMIN_USER');
    expect(server.process.output).not.toContain(PASSWORD);
  });

  it('without a sign-in or a token, an admin command says how to get one', async () => {
    const result = await runCli(['realm', 'list'], { env: { ...env(), REALMGATE_URL: server.baseUrl } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('realmgate login --server URL');
  });

  it('refuses a person who holds no realmgate-* role, and keeps nothing', async () => {
    const cli = await login('bert');
    expect(cli.exit?.code, cli.output).toBe(1);
    expect(cli.stderr).toContain('holds no realmgate-* role');
    expect(() => statSync(credentialsFile())).toThrow();
  }, 60_000);

  it('signs in through the device flow, and the admin commands use the credentials, refreshed as needed, until logout revokes them', async () => {
    const cli = await login('ada');
    expect(cli.exit?.code, cli.output).toBe(0);
    expect(cli.stdout).toContain(`Signed in to ${server.baseUrl}/`);

    // The file and its directory are the person's alone.
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, 'realmgate')).mode & 0o777).toBe(0o700);
    const first = stored();
    expect(first.server).toBe(`${server.baseUrl}/`);
    expect(first.refresh_token).toEqual(expect.any(String));

    // No --url: the server signed in to; no token: the stored one.
    const list = await cliOk(['realm', 'list'], { env: env() });
    expect(tableRows(list.stdout).map((row) => row.NAME).sort()).toEqual(['acme', 'root']);
    // An admin change made this way names the person as its actor.
    await cliOk(['scope', 'put', 'acme', 'orders:read', 'Read orders'], { env: env() });
    const events = await admin<{ events: Array<{ type: string; actor?: unknown }> }>(server, ADMIN_TOKEN, 'GET', '/realms/acme/events?type=scope.saved');
    const ada = await admin<{ sub: string }>(server, ADMIN_TOKEN, 'GET', '/realms/root/users/ada');
    expect(events.events[0]?.actor).toEqual({ sub: ada.sub, client_id: 'realmgate-cli' });

    // A token in the environment wins over the sign-in (at the server signed in to): a wrong one is refused, not replaced.
    const wrong = await runCli(['realm', 'list'], { env: { ...env(), ADMIN_TOKEN: 'not-the-admin-token-0123456789' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('the admin token was refused');
    // The sign-in's tokens go to its server alone.
    const elsewhere = await runCli(['realm', 'list', '--url', 'http://127.0.0.1:1'], { env: env() });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`you are signed in to ${server.baseUrl}/`);

    // An expired access token is refreshed with the refresh token (rotated), and the file rewritten with mode 0600.
    writeFileSync(credentialsFile(), JSON.stringify({ ...first, expires_at: Math.floor(Date.now() / 1000) - 10 }));
    await cliOk(['realm', 'show', 'acme'], { env: env() });
    const refreshed = stored();
    expect(refreshed.access_token).not.toBe(first.access_token);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);

    // Logout revokes at the server, then deletes the file.
    const out = await cliOk(['logout'], { env: env() });
    expect(out.stdout).toContain(`Signed out of ${server.baseUrl}/`);
    expect(() => statSync(credentialsFile())).toThrow();
    const call = await fetch(`${server.baseUrl}/admin/realms`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(call.status).toBe(401);
    const refresh = await postForm(`${server.baseUrl}/oauth2/access_token`, { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token, client_id: 'realmgate-cli' });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await cliOk(['logout'], { env: env() })).stdout).toContain('Not signed in.');
  }, 90_000);

  it('refuses a credentials file that others may read', async () => {
    writeFileSync(credentialsFile(), JSON.stringify({ server: `${server.baseUrl}/`, client_id: 'realmgate-cli', resource: 'x', access_token: 'x', expires_at: 0 }));
    chmodSync(credentialsFile(), 0o644);
    try {
      const result = await runCli(['realm', 'list'], { env: env() });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('may be read by others (mode 644)');
    } finally {
      rmSync(credentialsFile());
    }
  });
});
