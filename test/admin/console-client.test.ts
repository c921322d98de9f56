import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleClient } from '../../src/admin/console/client.js';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { clientCredentials } from '../support/oauth.js';

/**
 * The console's client in root (CONTRACT.md §14): public, PKCE required, exactly one redirect URI,
 * made at first start and again when missing, left alone when an operator changed it; and what
 * the console reads of its person's permissions, GET /admin/realms/{realm}/permissions.
 */
const CALLBACK = `${BASE_URL}/admin/console/callback`;

describe('the console client realmgate-console', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('acme');
    await t.admin.createRealm('other');
  });
  afterAll(() => t.close());

  const consoleClient = () => t.admin.request('GET', '/realms/root/clients/realmgate-console');

  /** An authorization request of the console, with these parameters changed (undefined: left out). */
  function authorize(changes: Record<string, string | undefined> = {}) {
    const query = new URLSearchParams();
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: 'realmgate-console',
      redirect_uri: CALLBACK,
      scope: 'openid',
      state: 'state-1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: `${BASE_URL}/admin`,
      ...changes,
    };
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
    return t.app.inject({ method: 'GET', url: `/oauth2/authorize?${query}` });
  }

  it('exists after the first start: public, no secret, PKCE required, code and refresh grants, exactly the callback as redirect URI', async () => {
    const response = await consoleClient();
    expect(response.statusCode, response.body).toBe(200);
    const client = response.json() as Record<string, unknown>;
    expect(client).toMatchObject({
      client_id: 'realmgate-console',
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      require_pkce: true,
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: [`${BASE_URL}/admin/console`],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(client).not.toHaveProperty('client_secret');
  });

  it('starts a sign-in only with an S256 challenge and the exact callback', async () => {
    // The well-formed request reaches the sign-in page.
    const good = await authorize();
    expect(good.statusCode, good.body).toBeLessThan(400);
    expect(String(good.headers.location ?? '')).not.toContain('error=');

    for (const [changes, error] of [
      [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
    ] as const) {
      const response = await authorize(changes);
      const location = new URL(String(response.headers.location), BASE_URL);
      expect(`${location.origin}${location.pathname}`, JSON.stringify(changes)).toBe(CALLBACK);
      expect(location.searchParams.get('error')).toBe(error);
    }
    // Another redirect URI, even below the console, is never redirected to.
    for (const redirectUri of [`${BASE_URL}/admin/console/callback/x`, `${BASE_URL}/admin/console`, 'https://evil.example/admin/console/callback']) {
      const response = await authorize({ redirect_uri: redirectUri });
      expect(response.statusCode, redirectUri).toBe(400);
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('is made again when missing, once among instances starting together, and an operator\'s change of it stays', async () => {
    expect((await t.admin.request('DELETE', '/realms/root/clients/realmgate-console')).statusCode).toBe(204);
    await Promise.all([1, 2, 3].map(() => ensureConsoleClient(t.store.clients, BASE_URL)));
    expect((await consoleClient()).json()).toMatchObject({ redirect_uris: [CALLBACK], require_pkce: true });

    const changed = await t.admin.request('PATCH', '/realms/root/clients/realmgate-console', { client_name: 'Ops console' });
    expect(changed.statusCode, changed.body).toBe(200);
    await ensureConsoleClient(t.store.clients, BASE_URL);
    expect((await consoleClient()).json()).toMatchObject({ client_name: 'Ops console', redirect_uris: [CALLBACK] });
  });

  describe('GET /admin/realms/{realm}/permissions', () => {
    async function tokenWith(roles: string[]): Promise<string> {
      const client = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles });
      const response = await clientCredentials(t.app, 'root', { clientId: client.client_id, secret: client.client_secret as string }, { resource: `${BASE_URL}/admin` });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { access_token: string }).access_token;
    }
    const permissions = (token: string, realm: string) =>
      t.app.inject({ method: 'GET', url: `/admin/realms/${realm}/permissions`, headers: { authorization: `Bearer ${token}` } });
    type Answer = { realm: string; operations: Record<string, { allowed: boolean; reason?: string }> };

    it('answers every operation allowed to ADMIN_TOKEN', async () => {
      const response = await t.admin.request('GET', '/realms/acme/permissions');
      expect(response.statusCode, response.body).toBe(200);
      const { operations } = response.json() as Answer;
      expect(Object.keys(operations).length).toBeGreaterThan(50);
      expect(Object.values(operations).every((decision) => decision.allowed)).toBe(true);
    });

    it('answers a realm viewer its reads allowed and its changes refused with the reason the call would get', async () => {
      const token = await tokenWith(['realmgate-viewer:acme']);
      const response = await permissions(token, 'acme');
      expect(response.statusCode, response.body).toBe(200);
      const { realm, operations } = response.json() as Answer;
      expect(realm).toBe('acme');
      expect(operations.getRealm).toEqual({ allowed: true });
      expect(operations.listClients).toEqual({ allowed: true });
      expect(operations.updateClient).toEqual({ allowed: false, reason: 'your roles give read-only access to the realm acme' });
      expect(operations.createRealm).toEqual({ allowed: false, reason: 'only realmgate-admin creates realms' });
      // What the answer says is what a call gets.
      const refused = await t.app.inject({ method: 'POST', url: '/admin/realms/acme/clients', headers: { authorization: `Bearer ${token}` }, payload: { client_name: 'x' } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ error: 'forbidden', error_description: operations.createClient!.reason });
      // Another realm: refused as any call there, the realm's existence not told.
      for (const other of ['other', 'missing-realm']) {
        const elsewhere = await permissions(token, other);
        expect(elsewhere.statusCode, other).toBe(403);
        expect(elsewhere.json()).toEqual({ error: 'forbidden', error_description: `your roles do not give access to the realm ${other}` });
      }
    });

    it('answers a realm admin of root that people are theirs to manage, and clients are not', async () => {
      const { operations } = (await permissions(await tokenWith(['realmgate-admin:root']), 'root')).json() as Answer;
      expect(operations.createUser).toEqual({ allowed: true });
      expect(operations.updateClient).toEqual({ allowed: false, reason: 'in the root realm, only realmgate-admin may change this' });
    });

    it('refuses a call without a token, or with a forged one', async () => {
      for (const headers of [{}, { authorization: 'Bearer forged-token-0123456789' }]) {
        const response = await t.app.inject({ method: 'GET', url: '/admin/realms/acme/permissions', headers });
        expect(response.statusCode).toBe(401);
      }
    });
  });
});
