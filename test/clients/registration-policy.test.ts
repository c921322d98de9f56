import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { accessToken, realmPath } from '../support/oauth.js';

/**
 * What a dynamically registered client may give itself (RFC 7591 §3, RFC 7592 §2.2,
 * CONTRACT.md §5): grants and scopes within the realm's `registration_grant_types` and
 * `registration_scopes`, widened only by what its initial access token allows; the password,
 * CIBA, token exchange and assertion grants only from such a token; never the fields only an
 * admin sets. Asking for more is 400 invalid_client_metadata and changes nothing.
 */

const REDIRECT = 'https://app.example/callback';
const CIBA = 'urn:openid:params:grant-type:ciba';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SAML2_BEARER = 'urn:ietf:params:oauth:grant-type:saml2-bearer';

type Registered = { client_id: string; client_secret?: string; registration_access_token: string } & Record<string, unknown>;

/** Each escalation a client might try at registration, and the field its refusal names. */
const ESCALATIONS: Array<[string, Record<string, unknown>, string]> = [
  ['client_credentials with the custom scope orders:write', { grant_types: ['client_credentials'], scope: 'orders:write' }, 'grant_types'],
  ['client_credentials', { grant_types: ['client_credentials'] }, 'grant_types'],
  ['the custom scope orders:write on the code flow', { redirect_uris: [REDIRECT], scope: 'openid orders:write' }, 'scope'],
  ['the password grant', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'password'], scope: 'openid' }, 'grant_types'],
  ['the CIBA grant', { grant_types: [CIBA], scope: 'openid' }, 'grant_types'],
  ['the token exchange grant', { grant_types: [TOKEN_EXCHANGE] }, 'grant_types'],
  ['the JWT bearer grant', { grant_types: [JWT_BEARER] }, 'grant_types'],
  ['the SAML 2.0 bearer grant', { grant_types: [SAML2_BEARER] }, 'grant_types'],
  ['introspect_any_token', { redirect_uris: [REDIRECT], introspect_any_token: true }, 'introspect_any_token'],
  ['allowed_audiences', { redirect_uris: [REDIRECT], allowed_audiences: ['https://api.example'] }, 'allowed_audiences'],
  ['skip_consent', { redirect_uris: [REDIRECT], skip_consent: true }, 'skip_consent'],
];

describe('the registration policy of dynamically registered clients', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { rate_limit_registration: null });
    await t.admin.createRealm('open', { open_registration: true, rate_limit_registration: null });
    // An admin lists password and CIBA here too: open registration must still not hand them out.
    await t.admin.createRealm('wide', {
      open_registration: true,
      rate_limit_registration: null,
      registration_grant_types: ['authorization_code', 'refresh_token', 'client_credentials', 'password', CIBA],
      registration_scopes: ['openid', 'orders:read'],
    });
    await t.admin.createRealm('narrow', { rate_limit_registration: null, registration_grant_types: ['authorization_code'], registration_scopes: ['openid'] });
    for (const realm of ['alpha', 'open', 'wide', 'narrow']) {
      await t.admin.putScope(realm, 'orders:read');
      await t.admin.putScope(realm, 'orders:write');
    }
  });
  afterAll(() => t.close());

  const registerUrl = (realm: string) => `${realmPath(realm)}/connect/register`;

  async function initialAccessToken(realm: string, allows: Record<string, unknown> = {}): Promise<string> {
    const response = await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, allows);
    expect(response.statusCode, response.body).toBe(201);
    return response.json().token as string;
  }

  function post(realm: string, body: unknown, token?: string): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url: registerUrl(realm),
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      payload: JSON.stringify(body),
    });
  }

  async function registered(realm: string, body: Record<string, unknown>, token?: string): Promise<Registered> {
    const response = await post(realm, body, token);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as Registered;
  }

  function put(realm: string, client: Registered, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'PUT',
      url: `${registerUrl(realm)}/${client.client_id}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registration_access_token}` },
      payload: JSON.stringify({ client_id: client.client_id, ...body }),
    });
  }

  function expectRefused(response: LightMyRequestResponse, field: string): void {
    expect({ status: response.statusCode, body: response.body }).toMatchObject({ status: 400 });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringContaining(`${field}:`) });
  }

  const clientCount = async (realm: string) => (await t.store.clients.list(realm)).length;

  describe('registration with an initial access token that allows nothing more', () => {
    for (const [name, body, field] of ESCALATIONS) {
      it(`refuses ${name}, creates nothing and leaves the token usable`, async () => {
        const token = await initialAccessToken('alpha');
        const before = await clientCount('alpha');
        expectRefused(await post('alpha', body, token), field);
        expect(await clientCount('alpha')).toBe(before);
        // The refusal did not spend the token: it still registers what the realm allows.
        await registered('alpha', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile email' }, token);
      });
    }
  });

  describe('open registration gets the realm policy only', () => {
    for (const [name, body, field] of ESCALATIONS) {
      it(`refuses ${name}`, async () => {
        const before = await clientCount('open');
        expectRefused(await post('open', body), field);
        expect(await clientCount('open')).toBe(before);
      });
    }
  });

  describe('an initial access token that allows more', () => {
    it('allows exactly its grant_types and scope, for the one registration made with it', async () => {
      const token = await initialAccessToken('alpha', { grant_types: ['client_credentials'], scope: 'orders:write' });
      // Not what the token does not name.
      expectRefused(await post('alpha', { grant_types: ['client_credentials', 'password'], scope: 'orders:write' }, token), 'grant_types');
      expectRefused(await post('alpha', { grant_types: ['client_credentials'], scope: 'orders:write orders:read' }, token), 'scope');
      expectRefused(await post('alpha', { grant_types: ['client_credentials'], scope: 'orders:write', introspect_any_token: true }, token), 'introspect_any_token');

      const client = await registered('alpha', { grant_types: ['client_credentials'], scope: 'orders:write' }, token);
      expect(client).toMatchObject({ grant_types: ['client_credentials'], scope: 'orders:write' });
      const issued = await accessToken(t.app, 'alpha', { clientId: client.client_id, secret: client.client_secret! }, 'orders:write');
      expect(issued).toEqual(expect.any(String));

      // One registration: the token is spent, and another token allows no more than the realm does.
      expect((await post('alpha', { grant_types: ['client_credentials'], scope: 'orders:write' }, token)).statusCode).toBe(401);
      expectRefused(await post('alpha', { grant_types: ['client_credentials'], scope: 'orders:write' }, await initialAccessToken('alpha')), 'grant_types');
    });

    for (const grant of ['password', CIBA, TOKEN_EXCHANGE, JWT_BEARER, SAML2_BEARER]) {
      it(`allows ${grant} when it names it`, async () => {
        const token = await initialAccessToken('alpha', { grant_types: [grant] });
        const client = await registered('alpha', { grant_types: [grant], scope: 'openid' }, token);
        expect(client.grant_types).toEqual([grant]);
      });
    }

    it('widens the realm policy, whose grants and scopes it keeps', async () => {
      const token = await initialAccessToken('alpha', { scope: 'orders:read' });
      const client = await registered('alpha', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile orders:read' }, token);
      expect(client.scope).toBe('openid profile orders:read');
    });
  });

  describe("the realm's registration_grant_types and registration_scopes", () => {
    it('widen the policy of open registration, never to the grants that need an initial access token', async () => {
      const client = await registered('wide', { grant_types: ['client_credentials'], scope: 'orders:read' });
      expect(await accessToken(t.app, 'wide', { clientId: client.client_id, secret: client.client_secret! }, 'orders:read')).toEqual(expect.any(String));
      expectRefused(await post('wide', { grant_types: ['client_credentials', 'password'] }), 'grant_types');
      expectRefused(await post('wide', { grant_types: [CIBA], scope: 'openid' }), 'grant_types');
      expectRefused(await post('wide', { grant_types: ['client_credentials'], scope: 'orders:write' }), 'scope');
      // Outside the realm's list, the defaults no longer apply.
      expectRefused(await post('wide', { redirect_uris: [REDIRECT], scope: 'openid email' }), 'scope');
    });

    it('narrow it below the defaults', async () => {
      const token = await initialAccessToken('narrow');
      expectRefused(await post('narrow', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] }, token), 'grant_types');
      expectRefused(await post('narrow', { redirect_uris: [REDIRECT], scope: 'openid profile' }, token), 'scope');
      await registered('narrow', { redirect_uris: [REDIRECT], scope: 'openid' }, token);
    });
  });

  describe('an update (RFC 7592 §2.2) does not widen the client', () => {
    const BASE = { redirect_uris: [REDIRECT], grant_types: ['authorization_code'], scope: 'openid' };

    it('refuses what its registration could not have had, and changes nothing', async () => {
      const client = await registered('alpha', BASE, await initialAccessToken('alpha'));
      const attempts: Array<[Record<string, unknown>, string]> = [
        [{ grant_types: ['authorization_code', 'client_credentials'] }, 'grant_types'],
        [{ scope: 'openid orders:write' }, 'scope'],
        [{ grant_types: ['authorization_code', 'password'] }, 'grant_types'],
        [{ grant_types: ['authorization_code', CIBA] }, 'grant_types'],
        [{ grant_types: ['authorization_code', TOKEN_EXCHANGE] }, 'grant_types'],
        [{ grant_types: ['authorization_code', JWT_BEARER] }, 'grant_types'],
        [{ grant_types: ['authorization_code', SAML2_BEARER] }, 'grant_types'],
        [{ introspect_any_token: true }, 'introspect_any_token'],
        [{ allowed_audiences: ['https://api.example'] }, 'allowed_audiences'],
        [{ skip_consent: true }, 'skip_consent'],
      ];
      for (const [change, field] of attempts) expectRefused(await put('alpha', client, { ...BASE, ...change }), field);
      expect(await t.store.clients.get('alpha', client.client_id)).toMatchObject({
        grant_types: ['authorization_code'],
        scope: 'openid',
        introspect_any_token: false,
        skip_consent: false,
        allowed_audiences: [],
      });
      expect((await put('alpha', client, { ...BASE, client_name: 'within the policy' })).statusCode).toBe(200);
    });

    it('keeps what its initial access token allowed, and no more', async () => {
      const token = await initialAccessToken('alpha', { grant_types: ['client_credentials'], scope: 'orders:write' });
      const client = await registered('alpha', { grant_types: ['client_credentials'] }, token);
      const widened = await put('alpha', client, { grant_types: ['client_credentials'], scope: 'orders:write' });
      expect(widened.statusCode, widened.body).toBe(200);
      expect(widened.json().scope).toBe('orders:write');
      expectRefused(await put('alpha', client, { grant_types: ['client_credentials', 'password'], scope: 'orders:write' }), 'grant_types');
      expectRefused(await put('alpha', client, { grant_types: ['client_credentials'], scope: 'orders:write orders:read' }), 'scope');
    });

    it('keeps what an admin gave it; once dropped, the client cannot take it back', async () => {
      const client = await registered('alpha', BASE, await initialAccessToken('alpha'));
      const granted = { grant_types: ['authorization_code', 'client_credentials'], scope: 'openid orders:write', introspect_any_token: true, allowed_audiences: ['https://api.example'] };
      const patched = await t.admin.request('PATCH', `/realms/alpha/clients/${client.client_id}`, granted);
      expect(patched.statusCode, patched.body).toBe(200);

      const echoed = await put('alpha', client, { ...BASE, ...granted, client_name: 'echoes its grants' });
      expect(echoed.statusCode, echoed.body).toBe(200);
      // An update that leaves the admin's fields out keeps them too.
      const renamed = await put('alpha', client, { ...BASE, grant_types: granted.grant_types, scope: granted.scope, client_name: 'renamed' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(await t.store.clients.get('alpha', client.client_id)).toMatchObject({ ...granted, client_name: 'renamed' });

      expect((await put('alpha', client, BASE)).statusCode).toBe(200);
      expectRefused(await put('alpha', client, { ...BASE, grant_types: granted.grant_types }), 'grant_types');
      expectRefused(await put('alpha', client, { ...BASE, scope: granted.scope }), 'scope');
    });
  });
});
