import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode } from '../support/flow.js';
import { type ServiceClient, introspect, postForm, revoke } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens, refreshGrant, verifyIdToken } from '../support/users.js';

const ISSUER = 'https://auth.test/oauth2/alpha';
const FULL_SCOPE = 'openid profile api:read api:write';

describe('token endpoint: refresh token grant (RFC 6749 §6)', () => {
  let t: TestApp & { clock: TestClock };
  let alice: TestUser;
  let app: ServiceClient;
  let other: ServiceClient;
  /** Sees every token of the realm at introspection. */
  let auditor: ServiceClient;

  const client = async (realm: string, record: Record<string, unknown>): Promise<ServiceClient> => {
    const created = await t.admin.createClient(realm, record);
    return { clientId: created.client_id, secret: created.client_secret as string };
  };
  const active = async (token: string, realm = 'alpha', by = auditor) => (await introspect(t.app, realm, by, token)).json().active;

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    await t.admin.createRealm('alpha', { access_token_lifetime: 600 });
    for (const scope of ['api:read', 'api:write']) await t.admin.putScope('alpha', scope);
    alice = await createUser(t.admin, 'alpha', 'alice', { claims: { name: 'Alice Liddell' } });
    const record = { grant_types: ['password', 'refresh_token'], scope: FULL_SCOPE };
    app = await client('alpha', record);
    other = await client('alpha', record);
    auditor = await client('alpha', { grant_types: ['client_credentials'], introspect_any_token: true });
  });
  afterAll(() => t.close());

  it('rotates: a new access and refresh token, and the used refresh token is retired', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const response = await refreshGrant(t.app, 'alpha', app, first.refresh_token!);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const second = response.json();
    expect(second).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: FULL_SCOPE,
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);

    expect((await introspect(t.app, 'alpha', app, first.refresh_token!)).json()).toEqual({ active: false });
    expect((await introspect(t.app, 'alpha', app, second.refresh_token)).json()).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      scope: FULL_SCOPE,
      username: 'alice',
      sub: alice.sub,
    });
    expect((await introspect(t.app, 'alpha', app, second.access_token)).json()).toMatchObject({ active: true, username: 'alice' });
  });

  it('carries the original sign-in into the new ID token, without a nonce', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const expected = { issuer: ISSUER, audience: app.clientId };
    const original = (await verifyIdToken(t.app, 'alpha', first.id_token!, expected)).payload;
    await t.clock.advance(1100); // so that a fresh auth_time would differ
    const refreshed = (await refreshGrant(t.app, 'alpha', app, first.refresh_token!)).json();
    const { payload } = await verifyIdToken(t.app, 'alpha', refreshed.id_token, expected);
    expect(payload.sub).toBe(alice.sub);
    expect(payload.auth_time).toBe(original.auth_time);
    expect(payload.sid).toBe(original.sid);
    expect(payload.amr).toEqual(['pwd']);
    expect(payload.iat).toBeGreaterThan(original.iat!);
    expect(payload.name).toBe('Alice Liddell');
    expect(payload.nonce).toBeUndefined();
  });

  it('revokes the whole grant when a used refresh token is replayed (RFC 9700 §4.14.2)', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const second = (await refreshGrant(t.app, 'alpha', app, first.refresh_token!)).json();
    expect(await active(second.access_token)).toBe(true);

    const replay = await refreshGrant(t.app, 'alpha', app, first.refresh_token!);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toBe('invalid_grant');
    for (const token of [first.access_token, second.access_token, second.refresh_token]) expect(await active(token)).toBe(false);
    // The newest refresh token went with its grant.
    const afterReplay = await refreshGrant(t.app, 'alpha', app, second.refresh_token);
    expect(afterReplay.statusCode).toBe(400);
    expect(afterReplay.json().error).toBe('invalid_grant');
    // Another grant of the same person and client is untouched.
    const unrelated = await passwordTokens(t.app, 'alpha', app, alice);
    expect((await refreshGrant(t.app, 'alpha', app, unrelated.refresh_token!)).statusCode).toBe(200);
  });

  it('narrows the access token to a requested scope, while the new refresh token keeps the whole grant', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const narrowed = await refreshGrant(t.app, 'alpha', app, first.refresh_token!, { scope: 'api:read' });
    expect(narrowed.statusCode).toBe(200);
    const body = narrowed.json();
    expect(body.scope).toBe('api:read');
    expect(body.id_token).toBeUndefined(); // no openid in this access token's scope
    expect((await introspect(t.app, 'alpha', app, body.access_token)).json()).toMatchObject({ active: true, scope: 'api:read' });
    expect((await introspect(t.app, 'alpha', app, body.refresh_token)).json()).toMatchObject({ active: true, scope: FULL_SCOPE });

    // The next refresh, without a scope, gets the whole grant back.
    const widenedAgain = (await refreshGrant(t.app, 'alpha', app, body.refresh_token)).json();
    expect(widenedAgain.scope).toBe(FULL_SCOPE);
  });

  it('refuses a scope beyond the grant with invalid_scope, and leaves the refresh token usable', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice, 'openid api:read');
    for (const scope of ['api:read api:write', 'admin', 'bad\\scope']) {
      const response = await refreshGrant(t.app, 'alpha', app, first.refresh_token!, { scope });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_scope');
    }
    const response = await refreshGrant(t.app, 'alpha', app, first.refresh_token!);
    expect(response.statusCode).toBe(200);
    expect(response.json().scope).toBe('openid api:read');
  });

  it('lets exactly one of two concurrent uses through, and then revokes the grant', async () => {
    // The database gives the token to one use only. The server cannot tell the other from a
    // thief's replay (RFC 9700 §4.14.2), so no token of the grant may survive it, not even
    // those of the use that won, whichever order their statements ran in.
    for (let round = 0; round < 8; round++) {
      const first = await passwordTokens(t.app, 'alpha', app, alice);
      const responses = await Promise.all([
        refreshGrant(t.app, 'alpha', app, first.refresh_token!),
        refreshGrant(t.app, 'alpha', app, first.refresh_token!),
      ]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([200, 400]);
      const winner = responses.find((response) => response.statusCode === 200)!.json();
      const loser = responses.find((response) => response.statusCode === 400)!.json();
      expect(loser.error).toBe('invalid_grant');
      for (const token of [first.access_token, first.refresh_token!, winner.access_token, winner.refresh_token]) {
        expect(await active(token)).toBe(false);
      }
    }
  });

  it('rotates many grants at once, each into successors of its own, while a token presented twice among them revokes only its grant', async () => {
    // Rotations that arrive together share one statement (src/store/tokens.ts).
    const bob = await createUser(t.admin, 'alpha', 'bob-many');
    const grants = await Promise.all(Array.from({ length: 12 }, (_, i) => passwordTokens(t.app, 'alpha', app, i % 2 ? bob : alice)));
    const twice = grants[0]!.refresh_token!;
    const responses = await Promise.all([...grants.map((grant) => refreshGrant(t.app, 'alpha', app, grant.refresh_token!)), refreshGrant(t.app, 'alpha', app, twice)]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([...Array(12).fill(200), 400]);

    const successors = responses.slice(1, 12).map((response) => response.json());
    for (const [i, successor] of successors.entries()) {
      const person = (i + 1) % 2 ? bob : alice;
      expect((await verifyIdToken(t.app, 'alpha', successor.id_token, { issuer: ISSUER, audience: app.clientId })).payload.sub).toBe(person.sub);
      expect((await introspect(t.app, 'alpha', auditor, successor.refresh_token)).json()).toMatchObject({ active: true, sub: person.sub });
      expect(await active(successor.access_token)).toBe(true);
      expect(await active(grants[i + 1]!.refresh_token!)).toBe(false);
    }
    const first = [responses[0]!, responses[12]!].find((response) => response.statusCode === 200)!.json();
    for (const token of [grants[0]!.access_token, first.access_token, first.refresh_token]) expect(await active(token)).toBe(false);
  });

  it('refuses the refresh token of another client, and does not spend it', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const stolen = await refreshGrant(t.app, 'alpha', other, first.refresh_token!);
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().error).toBe('invalid_grant');
    expect((await refreshGrant(t.app, 'alpha', app, first.refresh_token!)).statusCode).toBe(200);
  });

  it('refuses an access token, an unknown value, a missing parameter, and a token of another realm', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    for (const value of [first.access_token, 'unknown']) {
      const response = await refreshGrant(t.app, 'alpha', app, value);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_grant');
    }
    const missing = await refreshGrant(t.app, 'alpha', app, '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');

    await t.admin.createRealm('beta');
    const beta = await client('beta', { client_id: app.clientId, grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const crossRealm = await refreshGrant(t.app, 'beta', beta, first.refresh_token!);
    expect(crossRealm.statusCode).toBe(400);
    expect(crossRealm.json().error).toBe('invalid_grant');
    expect(await active(first.refresh_token!)).toBe(true);
  });

  it('refuses a refresh token once its person is deleted', async () => {
    const bob = await createUser(t.admin, 'alpha', 'bob');
    const first = await passwordTokens(t.app, 'alpha', app, bob);
    expect((await t.admin.request('DELETE', '/realms/alpha/users/bob')).statusCode).toBe(204);
    const response = await refreshGrant(t.app, 'alpha', app, first.refresh_token!);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });

  it('refuses a revoked refresh token', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    expect((await revoke(t.app, 'alpha', app, first.refresh_token!)).statusCode).toBe(200);
    const response = await refreshGrant(t.app, 'alpha', app, first.refresh_token!);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });

  it('revokes every access token of the grant when its current refresh token is revoked (CONTRACT.md §6)', async () => {
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const second = (await refreshGrant(t.app, 'alpha', app, first.refresh_token!)).json();
    for (const token of [first.access_token, second.access_token, second.refresh_token]) expect(await active(token)).toBe(true);
    expect((await revoke(t.app, 'alpha', app, second.refresh_token)).statusCode).toBe(200);
    for (const token of [first.access_token, second.access_token, second.refresh_token]) expect(await active(token)).toBe(false);
  });

  it('is refused to a client whose record does not list it', async () => {
    const noRefresh = await client('alpha', { grant_types: ['password'], scope: FULL_SCOPE });
    const first = await passwordTokens(t.app, 'alpha', app, alice);
    const response = await refreshGrant(t.app, 'alpha', noRefresh, first.refresh_token!);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });
});

describe('refresh tokens without rotation', () => {
  let t: TestApp;
  let alice: TestUser;
  let app: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('steady', { rotate_refresh_tokens: false });
    alice = await createUser(t.admin, 'steady', 'alice');
    const created = await t.admin.createClient('steady', { grant_types: ['password', 'refresh_token'], scope: 'openid profile' });
    app = { clientId: created.client_id, secret: created.client_secret as string };
  });
  afterAll(() => t.close());

  it('keeps the same refresh token usable and issues no new one', async () => {
    const first = await passwordTokens(t.app, 'steady', app, alice);
    const accessTokens = [first.access_token];
    for (let use = 0; use < 3; use++) {
      const response = await refreshGrant(t.app, 'steady', app, first.refresh_token!);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.refresh_token).toBeUndefined();
      expect(body.id_token).toEqual(expect.any(String));
      accessTokens.push(body.access_token);
    }
    expect((await introspect(t.app, 'steady', app, first.refresh_token!)).json()).toMatchObject({ active: true });

    // Every access token joined the refresh token's grant: revoking it revokes them all.
    expect((await revoke(t.app, 'steady', app, first.refresh_token!)).statusCode).toBe(200);
    for (const token of accessTokens) expect((await introspect(t.app, 'steady', app, token)).json()).toEqual({ active: false });
    expect((await refreshGrant(t.app, 'steady', app, first.refresh_token!)).json().error).toBe('invalid_grant');
  });

  it("rotates a public client's refresh tokens all the same (RFC 9700 §4.14.2)", async () => {
    const spa = await codeFlowSetup(t.admin, 'steady', { username: 'spa-user' });
    const { code, verifier } = await obtainCode(new TestBrowser(t.app, t.baseUrl), 'steady', spa);
    const form = { client_id: spa.clientId };
    const first = (
      await postForm(t.app, '/oauth2/steady/access_token', { ...form, grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI })
    ).json();
    const refresh = (token: string) => postForm(t.app, '/oauth2/steady/access_token', { ...form, grant_type: 'refresh_token', refresh_token: token });
    const second = (await refresh(first.refresh_token)).json();
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('still narrows the scope and refuses to widen it', async () => {
    const first = await passwordTokens(t.app, 'steady', app, alice, 'openid');
    expect((await refreshGrant(t.app, 'steady', app, first.refresh_token!, { scope: 'openid' })).json().scope).toBe('openid');
    const widened = await refreshGrant(t.app, 'steady', app, first.refresh_token!, { scope: 'openid profile' });
    expect(widened.statusCode).toBe(400);
    expect(widened.json().error).toBe('invalid_scope');
  });
});

describe('refresh token lifetime', () => {
  let t: TestApp & { clock: TestClock };

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
  });
  afterAll(() => t.close());

  for (const rotate of [true, false]) {
    it(`refuses a refresh token after refresh_token_lifetime (rotation ${rotate ? 'on' : 'off'})`, async () => {
      const realm = rotate ? 'brief' : 'brief-steady';
      await t.admin.createRealm(realm, { refresh_token_lifetime: 1, rotate_refresh_tokens: rotate });
      const user = await createUser(t.admin, realm, 'alice');
      const created = await t.admin.createClient(realm, { grant_types: ['password', 'refresh_token'], scope: 'openid' });
      const app = { clientId: created.client_id, secret: created.client_secret as string };
      const first = await passwordTokens(t.app, realm, app, user);
      await t.clock.advance(1200);
      const response = await refreshGrant(t.app, realm, app, first.refresh_token!);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_grant');
      // The access token lives on its own lifetime.
      expect((await introspect(t.app, realm, app, first.access_token)).json().active).toBe(true);
    });
  }
});
