import type { FastifyInstance } from 'fastify';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, location, obtainCode } from '../support/flow.js';
import { type ServiceClient, accessToken, basic, introspect, postForm, realmPath, revoke } from '../support/oauth.js';
import { createUser, passwordTokens, refreshGrant } from '../support/users.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const issuerOf = (realm: string) => `${BASE_URL}${realmPath(realm)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function publishedKeys(app: FastifyInstance, realm: string) {
  const response = await app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/jwk_uri` });
  expect(response.statusCode).toBe(200);
  return createLocalJWKSet(response.json());
}

async function currentKid(admin: AdminClient, realm: string, alg: string): Promise<string> {
  const keys = (await admin.request('GET', `/realms/${realm}/keys`)).json().keys as Array<{ kid: string; alg: string; current: boolean }>;
  return keys.find((key) => key.current && key.alg === alg)!.kid;
}

/** Stateless access tokens (RFC 9068) of a realm with `stateless_tokens`, CONTRACT.md §5–6. */
describe('stateless access tokens', () => {
  let t: TestApp & { clock: TestClock };
  let svc: ServiceClient;
  let other: ServiceClient;
  let auditor: ServiceClient;
  let web: ServiceClient;

  const countTokens = async (clientId: string, kind: string) =>
    (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE client_id = $1 AND kind = $2', [clientId, kind]))
      .rows[0]!.n;
  const active = async (realm: string, caller: ServiceClient, token: string) => (await introspect(t.app, realm, caller, token)).json();

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    await t.admin.createRealm('es', { stateless_tokens: true, access_token_lifetime: 600 });
    await t.admin.createRealm('rs', { stateless_tokens: true, signing_alg: 'RS256', access_token_lifetime: 900 });
    await t.admin.createRealm('beta', { stateless_tokens: true });
    svc = await t.admin.serviceClient('es', 'api:read');
    other = await t.admin.serviceClient('es');
    auditor = await t.admin.serviceClient('es', '', { introspect_any_token: true });
    const created = await t.admin.createClient('es', { grant_types: ['password', 'refresh_token'], scope: 'openid profile' });
    web = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  for (const [realm, alg, lifetime] of [
    ['es', 'ES256', 600],
    ['rs', 'RS256', 900],
  ] as const) {
    it(`issues an at+jwt signed with the realm's ${alg} key that verifies against the published key set`, async () => {
      const client = realm === 'es' ? svc : await t.admin.serviceClient(realm, 'api:read');
      const before = Math.floor(Date.now() / 1000);
      const response = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', scope: 'api:read' }, {
        authorization: basic(client.clientId, client.secret),
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: lifetime, scope: 'api:read' });

      const issuer = issuerOf(realm);
      const { payload, protectedHeader } = await jwtVerify(body.access_token, await publishedKeys(t.app, realm), {
        issuer,
        audience: issuer,
        typ: 'at+jwt',
        algorithms: [alg],
      });
      expect(protectedHeader).toEqual({ alg, kid: await currentKid(t.admin, realm, alg), typ: 'at+jwt' });
      expect(payload).toEqual({
        iss: issuer,
        sub: client.clientId,
        aud: issuer,
        exp: payload.iat! + lifetime,
        iat: expect.any(Number),
        jti: expect.stringMatching(UUID),
        client_id: client.clientId,
        scope: 'api:read',
        grant_id: expect.stringMatching(UUID),
      });
      expect(payload.iat).toBeGreaterThanOrEqual(before);
      // Nothing is stored for it.
      expect(await countTokens(client.clientId, 'access_token')).toBe(0);
    });
  }

  it('gives each token its own jti', async () => {
    const [a, b] = [await accessToken(t.app, 'es', svc), await accessToken(t.app, 'es', svc)];
    expect(decodeJwt(a).jti).not.toBe(decodeJwt(b).jti);
  });

  it('introspects a JWT as it does an opaque token, for its client and introspect_any_token only', async () => {
    const token = await accessToken(t.app, 'es', svc, 'api:read');
    const { exp, iat } = decodeJwt(token);
    const expected = {
      active: true,
      scope: 'api:read',
      client_id: svc.clientId,
      sub: svc.clientId,
      token_type: 'Bearer',
      exp,
      iat,
      iss: issuerOf('es'),
      realm: 'es',
    };
    expect(await active('es', svc, token)).toEqual(expected);
    expect(await active('es', auditor, token)).toEqual(expected);
    expect(await active('es', other, token)).toEqual({ active: false });
  });

  it('answers {active: false} for a forged signature, a foreign key, alg none, another realm and a malformed JWT', async () => {
    const token = await accessToken(t.app, 'es', svc);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    const claims = decodeJwt(token);
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(claims).setProtectedHeader(decodeProtectedHeader(token) as { alg: string }).sign(privateKey);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: decodeProtectedHeader(token).kid })).toString('base64url')}.${payload}.`;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'admin' })).toString('base64url')}.${signature}`;
    // The genuine token verified first: its forgeries are judged on their own, not as the token it was.
    expect(await active('es', auditor, token)).toMatchObject({ active: true });
    for (const forged of [`${header}.${payload}.${flipped}`, foreign, none, tampered, 'a.b.c', `${header}.${payload}`]) {
      expect(await active('es', auditor, forged)).toEqual({ active: false });
    }
    // A token of realm beta, introspected at es by a client of es (and the reverse check at beta).
    const betaClient = await t.admin.serviceClient('beta');
    const betaToken = await accessToken(t.app, 'beta', betaClient);
    expect(await active('beta', betaClient, betaToken)).toMatchObject({ active: true });
    expect(await active('es', auditor, betaToken)).toEqual({ active: false });
    expect(await active('beta', betaClient, token)).toEqual({ active: false });
  });

  it('answers {active: false} once the JWT has expired', async () => {
    await t.admin.createRealm('brief', { stateless_tokens: true, access_token_lifetime: 3 });
    const client = await t.admin.serviceClient('brief');
    const token = await accessToken(t.app, 'brief', client);
    expect(await active('brief', client, token)).toMatchObject({ active: true });
    await t.clock.advanceTo(decodeJwt(token).exp!, 50);
    expect(await active('brief', client, token)).toEqual({ active: false });
  });

  it('revokes a JWT by its jti: inactive for everyone, and only its own client may revoke it', async () => {
    const token = await accessToken(t.app, 'es', svc);
    // Another client's attempt answers as for an unknown token (RFC 7009 §2.2) and changes nothing.
    const ignored = await revoke(t.app, 'es', other, token);
    expect(ignored.statusCode).toBe(200);
    expect(ignored.body).toBe('');
    expect(await active('es', svc, token)).toMatchObject({ active: true });

    expect((await revoke(t.app, 'es', svc, token)).statusCode).toBe(200);
    expect(await active('es', svc, token)).toEqual({ active: false });
    expect(await active('es', auditor, token)).toEqual({ active: false });
    const { jti, exp } = decodeJwt(token);
    const row = await t.store.db.query<{ kind: string; expires_at: Date }>('SELECT kind, expires_at FROM revoked_jwts WHERE realm = $1 AND id = $2', [
      'es',
      jti,
    ]);
    expect(row.rows).toEqual([{ kind: 'jti', expires_at: new Date(exp! * 1000) }]);
    // Revoking again, or a forged token, still answers 200.
    expect((await revoke(t.app, 'es', svc, token)).statusCode).toBe(200);
    expect((await revoke(t.app, 'es', svc, `${token.slice(0, -4)}AAAA`)).statusCode).toBe(200);
    // Another token of the same client is untouched.
    expect(await active('es', svc, await accessToken(t.app, 'es', svc))).toMatchObject({ active: true });
  });

  it('gives a person a JWT with auth_time, an opaque stored refresh token, and serves /userinfo with the JWT', async () => {
    const alice = await createUser(t.admin, 'es', 'alice', { claims: { name: 'Alice' } });
    const before = Math.floor(Date.now() / 1000);
    const tokens = await passwordTokens(t.app, 'es', web, alice, 'openid profile');
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: alice.sub, client_id: web.clientId, scope: 'openid profile' });
    expect(claims.auth_time).toBeGreaterThanOrEqual(before);
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await countTokens(web.clientId, 'access_token')).toBe(0);
    expect(await countTokens(web.clientId, 'refresh_token')).toBe(1);

    expect(await active('es', auditor, tokens.access_token)).toEqual({
      active: true,
      scope: 'openid profile',
      client_id: web.clientId,
      username: 'alice',
      sub: alice.sub,
      token_type: 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      iss: issuerOf('es'),
      realm: 'es',
    });
    const userinfo = await t.app.inject({ method: 'GET', url: '/oauth2/es/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.statusCode, userinfo.body).toBe(200);
    expect(userinfo.json()).toMatchObject({ sub: alice.sub, name: 'Alice', preferred_username: 'alice' });

    expect((await revoke(t.app, 'es', web, tokens.access_token)).statusCode).toBe(200);
    const refused = await t.app.inject({ method: 'GET', url: '/oauth2/es/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toBe('invalid_token');
  });

  it('refreshes a stateless grant; revoking its refresh token denies every JWT of the grant', async () => {
    const bob = await createUser(t.admin, 'es', 'bob');
    const first = await passwordTokens(t.app, 'es', web, bob, 'openid');
    const refreshed = await refreshGrant(t.app, 'es', web, first.refresh_token!);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const second = refreshed.json();
    expect(decodeJwt(second.access_token).grant_id).toBe(decodeJwt(first.access_token).grant_id);
    for (const token of [first.access_token, second.access_token, second.refresh_token]) {
      expect(await active('es', auditor, token)).toMatchObject({ active: true });
    }

    expect((await revoke(t.app, 'es', web, second.refresh_token)).statusCode).toBe(200);
    for (const token of [first.access_token, second.access_token, second.refresh_token]) {
      expect(await active('es', auditor, token)).toEqual({ active: false });
    }
    // Another grant of the same person and client lives on.
    const other = await passwordTokens(t.app, 'es', web, bob, 'openid');
    expect(await active('es', auditor, other.access_token)).toMatchObject({ active: true });
  });

  it('denies the grant of a replayed refresh token', async () => {
    const carol = await createUser(t.admin, 'es', 'carol');
    const first = await passwordTokens(t.app, 'es', web, carol);
    const second = (await refreshGrant(t.app, 'es', web, first.refresh_token!)).json();
    const replay = await refreshGrant(t.app, 'es', web, first.refresh_token!);
    expect(replay.json().error).toBe('invalid_grant');
    for (const token of [first.access_token, second.access_token]) expect(await active('es', auditor, token)).toEqual({ active: false });
  });

  it("denies the JWTs of a code's first exchange when the code is used again (no refresh token stored)", async () => {
    await t.admin.createRealm('codes', { stateless_tokens: true });
    const setup = await codeFlowSetup(t.admin, 'codes', {
      client: { client_type: 'confidential', grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic' },
    });
    const client = { clientId: setup.clientId, secret: setup.secret as string };
    const watcher = await t.admin.serviceClient('codes', '', { introspect_any_token: true });
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { code, verifier } = await obtainCode(browser, 'codes', { clientId: client.clientId, username: setup.username, password: setup.password });
    const exchange = () =>
      postForm(t.app, '/oauth2/codes/access_token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI }, {
        authorization: basic(client.clientId, client.secret),
      });
    const first = await exchange();
    expect(first.statusCode, first.body).toBe(200);
    const { access_token: jwt, refresh_token: refresh } = first.json();
    expect(refresh).toBeUndefined();
    expect((await introspect(t.app, 'codes', watcher, jwt)).json()).toMatchObject({ active: true, username: setup.username });

    expect((await exchange()).json().error).toBe('invalid_grant');
    expect((await introspect(t.app, 'codes', watcher, jwt)).json()).toEqual({ active: false });
  });

  it('carries the sign-in\'s sid, and signing out denies JWTs of grants with nothing stored (a device grant without refresh token)', async () => {
    await t.admin.createRealm('devices', { stateless_tokens: true, device_poll_interval: 1 });
    const user = await createUser(t.admin, 'devices', 'erin');
    const tv = await t.admin.createClient('devices', { client_type: 'public', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'], scope: 'openid' });
    const watcher = await t.admin.serviceClient('devices', '', { introspect_any_token: true });
    const device = (await postForm(t.app, '/oauth2/devices/device/code', { client_id: tv.client_id })).json() as { device_code: string; user_code: string };
    const browser = new TestBrowser(t.app, t.baseUrl);
    const codePage = '/oauth2/devices/device/user';
    const login = location(await browser.submit(codePage, await browser.get(codePage), { user_code: device.user_code }));
    const consent = location(await browser.submit(login, await browser.get(login), { username: user.username, password: user.password }));
    await browser.submit(consent, await browser.get(consent), { decision: 'allow' });
    const tokens = await postForm(t.app, '/oauth2/devices/access_token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device.device_code,
      client_id: tv.client_id,
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const { access_token: jwt, refresh_token: refresh, id_token: idToken } = tokens.json();
    expect(refresh).toBeUndefined();
    expect(decodeJwt(jwt).sid).toBe(decodeJwt(idToken).sid);
    expect((await introspect(t.app, 'devices', watcher, jwt)).json()).toMatchObject({ active: true });

    const signOut = '/oauth2/devices/connect/endSession';
    const confirmed = await browser.submit(signOut, await browser.get(signOut), { decision: 'allow' });
    expect(confirmed.statusCode).toBeLessThan(400);
    expect((await introspect(t.app, 'devices', watcher, jwt)).json()).toEqual({ active: false });
  });

  it('denies the JWTs of a deleted person, whatever grant issued them', async () => {
    const dave = await createUser(t.admin, 'es', 'dave');
    const tokens = await passwordTokens(t.app, 'es', web, dave);
    expect((await t.admin.request('DELETE', '/realms/es/users/dave')).statusCode).toBe(204);
    expect(await active('es', auditor, tokens.access_token)).toEqual({ active: false });
    const denied = await t.store.db.query('SELECT 1 FROM revoked_jwts WHERE realm = $1 AND kind = $2 AND id = $3', [
      'es',
      'person',
      decodeJwt(tokens.access_token).sub,
    ]);
    expect(denied.rows).toHaveLength(1);
  });
});

/**
 * Two instances over one database: a revocation on one is seen by the other within a second,
 * from its in-memory deny list kept current by PostgreSQL NOTIFY.
 */
describe('stateless access tokens on two instances', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    instances = await startTwoInstances();
    ({ a, b } = instances);
  });
  afterAll(() => instances?.close());

  it('makes a JWT revoked on one instance inactive on the other within a second', async () => {
    const admin = new AdminClient(a);
    await admin.createRealm('shared', { stateless_tokens: true });
    const svc = await admin.serviceClient('shared');
    const token = await accessToken(a, 'shared', svc);
    expect((await introspect(b, 'shared', svc, token)).json()).toMatchObject({ active: true });

    expect((await revoke(a, 'shared', svc, token)).statusCode).toBe(200);
    const revokedAt = Date.now();
    let seen = false;
    while (Date.now() - revokedAt < 1000) {
      if ((await introspect(b, 'shared', svc, token)).json().active === false) {
        seen = true;
        break;
      }
      await sleep(20);
    }
    expect(seen).toBe(true);
  });

  it('makes the JWTs of a grant revoked on one instance inactive on the other within a second', async () => {
    const admin = new AdminClient(a);
    await admin.createRealm('shared2', { stateless_tokens: true });
    const created = await admin.createClient('shared2', { grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const client = { clientId: created.client_id, secret: created.client_secret as string };
    const erin = await createUser(admin, 'shared2', 'erin');
    const tokens = await passwordTokens(a, 'shared2', client, erin);
    expect((await introspect(b, 'shared2', client, tokens.access_token)).json()).toMatchObject({ active: true });

    expect((await revoke(a, 'shared2', client, tokens.refresh_token!)).statusCode).toBe(200);
    const revokedAt = Date.now();
    let seen = false;
    while (Date.now() - revokedAt < 1000) {
      if ((await introspect(b, 'shared2', client, tokens.access_token)).json().active === false) {
        seen = true;
        break;
      }
      await sleep(20);
    }
    expect(seen).toBe(true);
  });
});
