import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, accessToken, basic, introspect, postForm, revoke } from '../support/oauth.js';
import { storeToken } from '../support/tokens.js';
import { createUser, passwordTokens } from '../support/users.js';

describe('introspection (RFC 7662) and revocation (RFC 7009)', () => {
  let t: TestApp;
  let svc: ServiceClient;
  let other: ServiceClient;
  let auditor: ServiceClient;
  let statelessSvc: ServiceClient;
  let statelessOther: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { access_token_lifetime: 600 });
    svc = await t.admin.serviceClient('alpha', 'api:read');
    other = await t.admin.serviceClient('alpha');
    auditor = await t.admin.serviceClient('alpha', '', { introspect_any_token: true });
    await t.admin.createRealm('stateless', { stateless_tokens: true });
    statelessSvc = await t.admin.serviceClient('stateless');
    statelessOther = await t.admin.serviceClient('stateless');
  });
  afterAll(() => t.close());

  it('describes an active token to the client it was issued to', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await accessToken(t.app, 'alpha', svc);
    const response = await introspect(t.app, 'alpha', svc, token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body).toEqual({
      active: true,
      scope: 'api:read',
      client_id: svc.clientId,
      sub: svc.clientId,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
      iss: 'https://auth.test/oauth2/alpha',
      realm: 'alpha',
    });
    expect(body.iat).toBeGreaterThanOrEqual(before);
    expect(body.exp - body.iat).toBe(600);
    expect(body.username).toBeUndefined(); // no person behind a client credentials token
  });

  it('names the person behind a token (CONTRACT.md §3)', async () => {
    const alice = await createUser(t.admin, 'alpha', 'alice');
    const created = await t.admin.createClient('alpha', { grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const app = { clientId: created.client_id, secret: created.client_secret as string };
    const tokens = await passwordTokens(t.app, 'alpha', app, alice);
    expect((await introspect(t.app, 'alpha', app, tokens.access_token)).json()).toEqual({
      active: true,
      scope: 'openid',
      client_id: app.clientId,
      username: 'alice',
      sub: alice.sub,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
      iss: 'https://auth.test/oauth2/alpha',
      realm: 'alpha',
    });
    expect((await introspect(t.app, 'alpha', auditor, tokens.refresh_token!)).json()).toMatchObject({
      active: true,
      username: 'alice',
      token_type: 'refresh_token',
    });
  });

  it('forgets the tokens of a deleted person: they are deleted with the user', async () => {
    const bob = await createUser(t.admin, 'alpha', 'bob-deleted');
    const created = await t.admin.createClient('alpha', { grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const app = { clientId: created.client_id, secret: created.client_secret as string };
    const tokens = await passwordTokens(t.app, 'alpha', app, bob);
    expect((await introspect(t.app, 'alpha', app, tokens.access_token)).json().username).toBe('bob-deleted');

    expect((await t.admin.request('DELETE', '/realms/alpha/users/bob-deleted')).statusCode).toBe(204);
    for (const token of [tokens.access_token, tokens.refresh_token!]) {
      expect((await introspect(t.app, 'alpha', app, token)).json()).toEqual({ active: false });
    }
    const left = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE user_id = $1', [bob.sub]);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('shows another client a token only with introspect_any_token', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    expect((await introspect(t.app, 'alpha', other, token)).json()).toEqual({ active: false });
    const seen = (await introspect(t.app, 'alpha', auditor, token)).json();
    expect(seen).toMatchObject({ active: true, client_id: svc.clientId });
  });

  it('answers {active: false} alone for unknown, malformed and expired tokens', async () => {
    for (const token of ['unknown', randomBytes(32).toString('base64url'), 'a.b.c', '%00\u0000']) {
      const response = await introspect(t.app, 'alpha', svc, token);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    }
    const expired = await storeToken(t.store, { realm: 'alpha', clientId: svc.clientId, expiresInMs: -60_000 });
    expect((await introspect(t.app, 'alpha', svc, expired)).json()).toEqual({ active: false });
  });

  it('requires the token parameter', async () => {
    const response = await postForm(t.app, '/oauth2/alpha/introspect', {}, { authorization: basic(svc.clientId, svc.secret) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('refuses an unauthenticated or wrongly authenticated caller', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    const anonymous = await postForm(t.app, '/oauth2/alpha/introspect', { token });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe('invalid_client');
    const wrong = await introspect(t.app, 'alpha', { clientId: svc.clientId, secret: 'nope' }, token);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="alpha"');
  });

  it('refuses public clients', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    const spa = await t.admin.createClient('alpha', {
      client_type: 'public',
      redirect_uris: ['https://spa.test/cb'],
    });
    const response = await postForm(t.app, '/oauth2/alpha/introspect', { token, client_id: spa.client_id });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('revokes a token: 200, then it introspects inactive', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    const response = await revoke(t.app, 'alpha', svc, token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect((await introspect(t.app, 'alpha', svc, token)).json()).toEqual({ active: false });
    expect((await introspect(t.app, 'alpha', auditor, token)).json()).toEqual({ active: false });
  });

  it('answers 200 for unknown and already revoked tokens', async () => {
    expect((await revoke(t.app, 'alpha', svc, 'never-issued')).statusCode).toBe(200);
    const token = await accessToken(t.app, 'alpha', svc);
    expect((await revoke(t.app, 'alpha', svc, token)).statusCode).toBe(200);
    expect((await revoke(t.app, 'alpha', svc, token)).statusCode).toBe(200);
  });

  it("leaves another client's token alone, answering as for an unknown token (RFC 7009 §2.2: no validity oracle)", async () => {
    const unknown = await revoke(t.app, 'alpha', other, 'never-issued');
    for (const realm of ['alpha', 'stateless'] as const) {
      const owner = realm === 'alpha' ? svc : statelessSvc;
      const stranger = realm === 'alpha' ? other : statelessOther;
      const token = await accessToken(t.app, realm, owner);
      const response = await revoke(t.app, realm, stranger, token);
      expect(response.statusCode).toBe(unknown.statusCode);
      expect(response.body).toBe(unknown.body);
      expect((await introspect(t.app, realm, owner, token)).json().active).toBe(true);
    }
  });

  it('revokes the whole grant when a refresh token is revoked', async () => {
    const grant = { realm: 'alpha', clientId: svc.clientId, grantId: randomUUID(), grantType: 'refresh_token', scope: 'api:read' };
    const access = await storeToken(t.store, { ...grant, kind: 'access_token' });
    const refresh = await storeToken(t.store, { ...grant, kind: 'refresh_token' });
    expect((await introspect(t.app, 'alpha', svc, refresh)).json()).toMatchObject({ active: true, token_type: 'refresh_token' });

    expect((await revoke(t.app, 'alpha', svc, refresh)).statusCode).toBe(200);
    expect((await introspect(t.app, 'alpha', svc, refresh)).json()).toEqual({ active: false });
    expect((await introspect(t.app, 'alpha', svc, access)).json()).toEqual({ active: false });
  });

  it('requires the token parameter and client authentication to revoke', async () => {
    const missing = await postForm(t.app, '/oauth2/alpha/token/revoke', {}, { authorization: basic(svc.clientId, svc.secret) });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
    const token = await accessToken(t.app, 'alpha', svc);
    const anonymous = await postForm(t.app, '/oauth2/alpha/token/revoke', { token });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe('invalid_client');
    expect((await introspect(t.app, 'alpha', svc, token)).json().active).toBe(true);
  });

  it('refuses repeated parameters at both endpoints', async () => {
    const token = await accessToken(t.app, 'alpha', svc);
    const forms: Array<Record<string, string | string[]>> = [
      { token: [token, token] },
      { token, token_type_hint: ['access_token', 'refresh_token'] },
    ];
    for (const path of ['introspect', 'token/revoke']) {
      for (const form of forms) {
        const response = await postForm(t.app, `/oauth2/alpha/${path}`, form, { authorization: basic(svc.clientId, svc.secret) });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toBe('invalid_request');
      }
    }
    expect((await introspect(t.app, 'alpha', svc, token)).json().active).toBe(true);
  });
});
