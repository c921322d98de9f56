import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, freePort, startTestApp } from '../support/app.js';
import { PROJECT_ROOT, ServerProcess, buildOnce, serverEnv, stopAll, waitForStatus } from '../support/process.js';
import { HttpBrowser } from './http-browser.js';

const run = promisify(execFile);

/**
 * The examples of examples/, run as their README says against a realmgate listening on a
 * port, so that they cannot rot: examples/setup.mjs creates the realm, the person and the
 * clients; the API (examples/api) and the web application (examples/web) run as processes.
 */
describe('examples', () => {
  let t: TestApp;
  let settings: Record<string, string>;
  let apiUrl: string;
  let webUrl: string;

  /** Runs examples/setup.mjs; the variables it exports. */
  const setup = async (env: Record<string, string>): Promise<Record<string, string>> => {
    const { stdout } = await run(process.execPath, ['examples/setup.mjs'], { cwd: PROJECT_ROOT, env: serverEnv(env) });
    return Object.fromEntries([...stdout.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name!, value!]));
  };

  const start = async (script: string, env: Record<string, string>, url: string): Promise<void> => {
    const child = new ServerProcess(process.execPath, [script], serverEnv({ LOG_LEVEL: 'warn', ...env }));
    await waitForStatus(child, `${url}/healthz`, 200, Date.now() + 20_000);
  };

  beforeAll(async () => {
    // The API imports realmgate/resource-server, which resolves to dist/ through the package's own exports.
    const [app, apiPort, webPort] = await Promise.all([startTestApp({ listen: true }), freePort(), freePort(), buildOnce()]);
    t = app;
    apiUrl = `http://127.0.0.1:${apiPort}`;
    webUrl = `http://127.0.0.1:${webPort}`;
    const env = { REALMGATE_URL: t.baseUrl, ADMIN_TOKEN, WEB_URL: webUrl };
    await setup(env);
    // Again, as someone who runs it twice: it updates what exists and hands out new secrets.
    settings = await setup(env);
    await Promise.all([
      start('examples/api/server.mjs', { ISSUER: settings.ISSUER!, API_PORT: String(apiPort), API_RESOURCE: apiUrl, API_CLIENT_ID: settings.API_CLIENT_ID!, API_CLIENT_SECRET: settings.API_CLIENT_SECRET! }, apiUrl),
      start('examples/web/server.mjs', {
        ISSUER: settings.ISSUER!,
        WEB_CLIENT_ID: settings.WEB_CLIENT_ID!,
        WEB_CLIENT_SECRET: settings.WEB_CLIENT_SECRET!,
        WEB_PORT: String(webPort),
        WEB_URL: webUrl,
        API_URL: apiUrl,
      }, webUrl),
    ]);
  }, 120_000);
  afterAll(async () => {
    await stopAll();
    await t?.close();
  });

  it('setup exports the issuer of the demo realm and a secret for each client', () => {
    expect(settings).toMatchObject({
      ISSUER: `${t.baseUrl}/oauth2/demo`,
      WEB_CLIENT_ID: 'web',
      API_CLIENT_ID: 'orders-api',
      CLI_CLIENT_ID: 'cli',
      WEB_CLIENT_SECRET: expect.stringMatching(/^[\w-]{20,}$/),
      API_CLIENT_SECRET: expect.stringMatching(/^[\w-]{20,}$/),
      CLI_CLIENT_SECRET: expect.stringMatching(/^[\w-]{20,}$/),
    });
  });

  it('the API answers 401 without a token, 200 with one of the cli client (JWT or opaque), 403 without the scope', async () => {
    const anonymous = await fetch(`${apiUrl}/orders`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer realm="${settings.ISSUER}", resource_metadata="${apiUrl}/.well-known/oauth-protected-resource"`);

    const tokenFor = async (scope: string) => {
      const response = await fetch(`${settings.ISSUER}/access_token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${settings.CLI_CLIENT_ID}:${settings.CLI_CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const writer = await tokenFor('orders:read orders:write');
    const placed = await fetch(`${apiUrl}/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'green tea' }),
    });
    expect(placed.status).toBe(201);
    const listed = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${writer}` } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ caller: { client_id: 'cli' }, orders: [{ id: 1, item: 'green tea' }] });

    // Opaque tokens (STATELESS_TOKENS=false) are introspected as the orders-api client.
    expect(writer.split('.')).toHaveLength(3);
    await t.admin.request('PATCH', '/realms/demo', { settings: { stateless_tokens: false } });
    try {
      const opaque = await tokenFor('orders:read');
      expect(opaque).toMatch(/^[\w-]{43}$/);
      const answer = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${opaque}` } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ caller: { client_id: 'cli', scope: 'orders:read' } });
    } finally {
      await t.admin.request('PATCH', '/realms/demo', { settings: { stateless_tokens: true } });
    }

    const reader = await tokenFor('orders:read');
    const refused = await fetch(`${apiUrl}/orders`, { method: 'POST', headers: { authorization: `Bearer ${reader}` } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'insufficient_scope' });
  });

  it('the web application signs alice in (code flow with PKCE) and shows what the API answers with her token', async () => {
    const browser = new HttpBrowser();
    expect((await browser.get(`${webUrl}/`)).body).toContain('href="/login"');

    const signIn = await browser.get(`${webUrl}/login`);
    expect(signIn.url).toMatch(new RegExp(`^${settings.ISSUER}/login`));
    const consent = await browser.submit(signIn, { username: 'alice', password: 'correct horse battery' });
    expect(consent.url).toMatch(new RegExp(`^${settings.ISSUER}/consent`));
    expect(consent.body).toContain('orders:read');
    const home = await browser.submit(consent, { decision: 'allow' });
    expect(home.url).toBe(`${webUrl}/`);
    expect(home.body).toContain('<strong id="name">Alice Example</strong>');
    expect(browser.visited.some((visit) => visit.startsWith(`GET ${webUrl}/callback?code=`))).toBe(true);

    const orders = await browser.get(`${webUrl}/orders`);
    expect(orders.body).toContain('<strong id="status">200</strong>');
    expect(orders.body).toContain('orders:read orders:write');

    // While realmgate's session lasts, signing in again asks nothing (the consent is remembered)…
    expect((await browser.get(`${webUrl}/login`)).body).toContain('<strong id="name">Alice Example</strong>');
    // …and signing out ends it too (RP-initiated logout), back to the application's home.
    const out = await browser.get(`${webUrl}/logout`);
    expect(out.url).toBe(`${webUrl}/`);
    expect(out.body).toContain('href="/login"');
    expect((await browser.get(`${webUrl}/login`)).url).toMatch(new RegExp(`^${settings.ISSUER}/login`));
  });
});
