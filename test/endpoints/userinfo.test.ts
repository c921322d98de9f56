import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, postForm, revoke } from '../support/oauth.js';
import { storeToken } from '../support/tokens.js';
import { type TestUser, createUser, passwordTokens } from '../support/users.js';

const USERINFO = '/oauth2/alpha/userinfo';
const ALICE_CLAIMS = { name: 'Alice Liddell', given_name: 'Alice', email: 'alice@example.com', email_verified: true, locale: 'en-GB' };

describe('UserInfo endpoint (OIDC Core §5.3, RFC 6750)', () => {
  let t: TestApp;
  let alice: TestUser;
  let app: ServiceClient;

  const get = (token?: string, url = USERINFO) =>
    t.app.inject({ method: 'GET', url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  const tokenFor = async (scope: string) => (await passwordTokens(t.app, 'alpha', app, alice, scope)).access_token;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    await t.admin.putScope('alpha', 'api:read');
    alice = await createUser(t.admin, 'alpha', 'alice', { claims: ALICE_CLAIMS });
    const created = await t.admin.createClient('alpha', {
      grant_types: ['password', 'refresh_token'],
      scope: 'openid profile email api:read',
    });
    app = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  it('answers the claims of the token scope to a GET with a bearer header', async () => {
    const response = await get(await tokenFor('openid profile email'));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      sub: alice.sub,
      preferred_username: 'alice',
      name: 'Alice Liddell',
      given_name: 'Alice',
      locale: 'en-GB',
      updated_at: expect.any(Number),
      email: 'alice@example.com',
      email_verified: true,
    });
  });

  it('accepts the token in a POST form body (RFC 6750 §2.2), or a header on POST', async () => {
    const token = await tokenFor('openid email');
    const form = await postForm(t.app, USERINFO, { access_token: token });
    expect(form.statusCode).toBe(200);
    expect(form.json()).toEqual({ sub: alice.sub, email: 'alice@example.com', email_verified: true });
    const header = await postForm(t.app, USERINFO, {}, { authorization: `Bearer ${token}` });
    expect(header.statusCode).toBe(200);
    expect(header.json()).toEqual(form.json());
  });

  it('releases only what the scope covers (OIDC Core §5.4)', async () => {
    expect((await get(await tokenFor('openid'))).json()).toEqual({ sub: alice.sub });
    const profile = (await get(await tokenFor('openid profile'))).json();
    expect(profile).toMatchObject({ sub: alice.sub, preferred_username: 'alice', name: 'Alice Liddell' });
    expect(profile.email).toBeUndefined();
    expect(profile.email_verified).toBeUndefined();
    const email = (await get(await tokenFor('openid email'))).json();
    expect(email).toEqual({ sub: alice.sub, email: 'alice@example.com', email_verified: true });
  });

  it('answers the current record, not the one at sign-in', async () => {
    const bob = await createUser(t.admin, 'alpha', 'bob', { claims: { name: 'Bob' } });
    const token = (await passwordTokens(t.app, 'alpha', app, bob, 'openid profile')).access_token;
    const patched = await t.admin.request('PATCH', '/realms/alpha/users/bob', { claims: { name: 'Robert' } });
    expect(patched.statusCode).toBe(200);
    expect((await get(token)).json().name).toBe('Robert');
  });

  it('challenges a request without a token: 401 with a bare Bearer challenge (RFC 6750 §3.1)', async () => {
    for (const response of [await get(), await postForm(t.app, USERINFO, {})]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha"');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
    }
    // Another scheme is no bearer token.
    const basicOnly = await t.app.inject({ method: 'GET', url: USERINFO, headers: { authorization: 'Basic YTpi' } });
    expect(basicOnly.statusCode).toBe(401);
    expect(basicOnly.headers['www-authenticate']).toBe('Bearer realm="alpha"');
  });

  it('does not read a token from the query: URLs end up in logs', async () => {
    const token = await tokenFor('openid');
    const response = await t.app.inject({ method: 'GET', url: `${USERINFO}?access_token=${token}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha"');
  });

  it('refuses a token sent two ways, a repeated one, or a malformed header with 400 invalid_request', async () => {
    const token = await tokenFor('openid');
    const requests = [
      postForm(t.app, USERINFO, { access_token: token }, { authorization: `Bearer ${token}` }),
      postForm(t.app, USERINFO, { access_token: [token, token] }),
      t.app.inject({ method: 'GET', url: USERINFO, headers: { authorization: 'Bearer' } }),
      t.app.inject({ method: 'GET', url: USERINFO, headers: { authorization: `Bearer ${token} extra` } }),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.statusCode).toBe(400);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha", error="invalid_request"');
      expect(response.json().error).toBe('invalid_request');
    }
  });

  it('answers 401 invalid_token for a revoked, unknown, expired or refresh token', async () => {
    const body = await passwordTokens(t.app, 'alpha', app, alice, 'openid profile');
    const revoked = await tokenFor('openid');
    expect((await revoke(t.app, 'alpha', app, revoked)).statusCode).toBe(200);
    const expired = await storeToken(t.store, {
      realm: 'alpha',
      clientId: app.clientId,
      subject: alice.sub,
      userId: alice.sub,
      scope: 'openid',
      expiresInMs: -1000,
    });
    for (const token of [revoked, 'unknown-token', expired, body.refresh_token!]) {
      const response = await get(token);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha", error="invalid_token"');
      expect(response.json().error).toBe('invalid_token');
    }
    // …while the access token issued with that refresh token answers.
    expect((await get(body.access_token)).statusCode).toBe(200);
  });

  it('answers 401 invalid_token for a token with no person behind it', async () => {
    const svc = await t.admin.serviceClient('alpha', 'openid');
    const response = await get(await accessToken(t.app, 'alpha', svc));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha", error="invalid_token"');
  });

  it('answers 403 insufficient_scope for a token without openid', async () => {
    const response = await get(await tokenFor('profile email api:read'));
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="alpha", error="insufficient_scope", scope="openid"');
    expect(response.json().error).toBe('insufficient_scope');
  });

  it('knows only the tokens of its own realm', async () => {
    const token = await tokenFor('openid');
    const user = await createUser(t.admin, 'root', 'alice');
    const created = await t.admin.createClient('root', { grant_types: ['password'], scope: 'openid' });
    const rootToken = (await passwordTokens(t.app, 'root', { clientId: created.client_id, secret: created.client_secret as string }, user))
      .access_token;

    const crossed = await get(token, '/oauth2/userinfo');
    expect(crossed.statusCode).toBe(401);
    expect(crossed.headers['www-authenticate']).toBe('Bearer realm="root", error="invalid_token"');
    const own = await get(rootToken, '/oauth2/userinfo');
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual({ sub: user.sub });
    expect((await get(rootToken)).statusCode).toBe(401);
  });
});
