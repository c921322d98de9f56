import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, NO_RATE_LIMITS, startTestApp } from '../support/app.js';
import { confidentialClient, freshRealm, issuerOf } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, obtainCode } from '../support/flow.js';
import { type ServiceClient, basic, introspect, postForm, realmPath, revoke } from '../support/oauth.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type TestUser, createUser, passwordTokens, tokenRequest, verifyIdToken } from '../support/users.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** OpenID Connect Core §8, CONTRACT.md §13: what a pairwise client sees of a person, on every surface a `sub` reaches it. */
describe('pairwise subject identifiers', () => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver('/logout');
    t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** A confidential client of the password and code grants (and token exchange), with `redirect` as its one redirect URI. */
  const client = (realm: string, redirect: string, extra: Record<string, unknown> = {}): Promise<ServiceClient> =>
    confidentialClient(t, realm, { redirect_uris: [redirect], grant_types: ['authorization_code', 'password', 'refresh_token', TOKEN_EXCHANGE], ...extra });

  /** A realm with a public client, two pairwise clients of the sector app.example and one of other.example. */
  async function realmWithClients(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { ...NO_RATE_LIMITS, ...settings });
    return {
      realm,
      publicClient: await client(realm, REDIRECT_URI),
      appOne: await client(realm, REDIRECT_URI, { subject_type: 'pairwise' }),
      appTwo: await client(realm, 'https://app.example/second/callback', { subject_type: 'pairwise' }),
      other: await client(realm, 'https://other.example/callback', { subject_type: 'pairwise' }),
    };
  }

  const idTokenSub = async (realm: string, c: ServiceClient, person: TestUser) => {
    const tokens = await passwordTokens(t.app, realm, c, person, 'openid');
    const { payload } = await verifyIdToken(t.app, realm, tokens.id_token!, { issuer: issuerOf(realm), audience: c.clientId });
    return { sub: payload.sub!, tokens };
  };

  const userinfo = (realm: string, accessToken: string) =>
    t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${accessToken}` } });

  it('discovery lists both subject types', async () => {
    const realm = await freshRealm(t);
    const discovery = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` });
    expect(discovery.json().subject_types_supported).toEqual(['public', 'pairwise']);
  });

  it('over many people: a pairwise sub is never the public one, one sector agrees, two sectors differ, and each is stable', async () => {
    const { realm, publicClient, appOne, appTwo, other } = await realmWithClients();
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const person = await createUser(t.admin, realm, `many-${i}`);
      const local = (await idTokenSub(realm, publicClient, person)).sub;
      expect(local).toBe(person.sub);
      const one = (await idTokenSub(realm, appOne, person)).sub;
      const two = (await idTokenSub(realm, appTwo, person)).sub;
      const elsewhere = (await idTokenSub(realm, other, person)).sub;
      expect(one).not.toBe(local);
      expect(one).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(two).toBe(one);
      expect(elsewhere).not.toBe(one);
      expect(elsewhere).not.toBe(local);
      if (i === 0) expect((await idTokenSub(realm, appOne, person)).sub).toBe(one); // stable
      for (const sub of [local, one, elsewhere]) {
        expect(seen.has(sub), `${sub} is another person's`).toBe(false);
        seen.add(sub);
      }
    }
  }, 240_000);

  it('UserInfo and introspection (by the client, and by a resource server) answer the sub of the token\'s client', async () => {
    const { realm, publicClient, appOne } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'reader');
    const { sub, tokens } = await idTokenSub(realm, appOne, person);
    const info = await userinfo(realm, tokens.access_token);
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json().sub).toBe(sub);
    expect(info.body).not.toContain(person.sub);
    expect((await introspect(t.app, realm, appOne, tokens.access_token)).json()).toMatchObject({ active: true, sub });
    const api = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
    expect((await introspect(t.app, realm, api, tokens.access_token)).json()).toMatchObject({ active: true, sub });
    // The refresh token too; and a public client's token keeps the person's own id.
    expect((await introspect(t.app, realm, appOne, tokens.refresh_token!)).json()).toMatchObject({ active: true, sub });
    const publicTokens = await passwordTokens(t.app, realm, publicClient, person, 'openid');
    expect((await introspect(t.app, realm, api, publicTokens.access_token)).json()).toMatchObject({ active: true, sub: person.sub });
    expect((await userinfo(realm, publicTokens.access_token)).json().sub).toBe(person.sub);
  });

  it('a JWT access token carries the pairwise sub and never the person\'s id; UserInfo and introspection read it back, and a password change denies it', async () => {
    const { realm, appOne } = await realmWithClients({ stateless_tokens: true });
    const person = await createUser(t.admin, realm, 'stateless');
    const { sub, tokens } = await idTokenSub(realm, appOne, person);
    const claims = decodeJwt(tokens.access_token);
    expect(claims.sub).toBe(sub);
    expect(JSON.stringify(claims)).not.toContain(person.sub);
    expect((await userinfo(realm, tokens.access_token)).json().sub).toBe(sub);
    expect((await introspect(t.app, realm, appOne, tokens.access_token)).json()).toMatchObject({ active: true, sub });
    // The person behind it is known to the server: a password change denies it, as it does a public client's.
    const changed = await t.admin.request('PATCH', `/realms/${realm}/users/stateless`, { password: 'another horse battery staple' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await introspect(t.app, realm, appOne, tokens.access_token)).json()).toEqual({ active: false });
    expect((await userinfo(realm, tokens.access_token)).statusCode).toBe(401);
  });

  it('a JWT access token seals its person for its client alone, and is revoked like any other', async () => {
    const { realm, appOne, other } = await realmWithClients({ stateless_tokens: true });
    const person = await createUser(t.admin, realm, 'sealed');
    const { tokens } = await idTokenSub(realm, appOne, person);
    const { tokens: otherTokens } = await idTokenSub(realm, other, person);
    // Each token's seal is bound to its client: the two differ, though they seal the same person.
    expect(decodeJwt(tokens.access_token).sealed_sub).not.toBe(decodeJwt(otherTokens.access_token).sealed_sub);
    expect(decodeJwt(tokens.access_token).sealed_sub).toBe(decodeJwt((await idTokenSub(realm, appOne, person)).tokens.access_token).sealed_sub);
    expect((await revoke(t.app, realm, appOne, tokens.access_token)).statusCode).toBe(200);
    expect((await introspect(t.app, realm, appOne, tokens.access_token)).json()).toEqual({ active: false });
    expect((await introspect(t.app, realm, other, otherTokens.access_token)).json()).toMatchObject({ active: true });
  });

  for (const stateless of [false, true]) {
    it(`token exchange: the exchanged token names the person as the exchanging client sees them (${stateless ? 'JWT' : 'opaque'})`, async () => {
      const { realm, appOne } = await realmWithClients({ stateless_tokens: stateless });
      const person = await createUser(t.admin, realm, 'exchanged');
      const { sub, tokens } = await idTokenSub(realm, appOne, person);
      const exchanged = await tokenRequest(t.app, realm, appOne, { grant_type: TOKEN_EXCHANGE, subject_token: tokens.access_token, subject_token_type: ACCESS_TOKEN_TYPE });
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      const token = exchanged.json().access_token as string;
      if (stateless) expect(decodeJwt(token).sub).toBe(sub);
      expect((await introspect(t.app, realm, appOne, token)).json()).toMatchObject({ active: true, sub });
    });
  }

  it('a logout token names the person as the pairwise client sees them', async () => {
    const realm = await freshRealm(t, NO_RATE_LIMITS);
    const person = await createUser(t.admin, realm, 'leaving');
    const pairwise = await client(realm, REDIRECT_URI, { subject_type: 'pairwise', backchannel_logout_uri: receiver.url, client_type: 'public', token_endpoint_auth_method: 'none' });
    const browser = new TestBrowser(t.app, t.baseUrl);
    const { code, verifier } = await obtainCode(browser, realm, { clientId: pairwise.clientId, ...person });
    const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: pairwise.clientId, redirect_uri: REDIRECT_URI });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const sub = decodeJwt(tokens.json().id_token as string).sub;
    expect(sub).not.toBe(person.sub);
    const before = receiver.received.length;
    // RP-initiated logout with the client's ID token: its pairwise sub names the signed-in person, so the session ends at once.
    const ended = await browser.get(`${realmPath(realm)}/connect/endSession?id_token_hint=${tokens.json().id_token}`);
    expect(ended.statusCode).toBe(200);
    expect(await t.store.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [person.sub])).toMatchObject({ rows: [] });
    await t.outbox.tick();
    const received = await receiver.waitFor(before + 1, 10_000);
    const logoutToken = new URLSearchParams(received[before]!.body).get('logout_token')!;
    expect(decodeJwt(logoutToken)).toMatchObject({ sub, aud: pairwise.clientId });
  });

  it('end-session: a pairwise ID token of another person is no hint for this session, which is kept until the person confirms', async () => {
    const realm = await freshRealm(t, NO_RATE_LIMITS);
    const signedIn = await createUser(t.admin, realm, 'signed-in');
    const someoneElse = await createUser(t.admin, realm, 'someone-else');
    const pairwise = await client(realm, REDIRECT_URI, { subject_type: 'pairwise' });
    const browser = new TestBrowser(t.app, t.baseUrl);
    await obtainCode(browser, realm, { clientId: pairwise.clientId, ...signedIn });
    const otherIdToken = (await passwordTokens(t.app, realm, pairwise, someoneElse, 'openid')).id_token!;
    const page = await browser.get(`${realmPath(realm)}/connect/endSession?id_token_hint=${otherIdToken}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="decision"');
    expect((await t.store.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [signedIn.sub])).rows).toHaveLength(1);
  });

  it('the claims parameter\'s asked sub is the pairwise one: it answers for that person, and the person\'s own id is another person', async () => {
    const { realm, appOne } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'asked');
    const { sub } = await idTokenSub(realm, appOne, person);
    const browser = new TestBrowser(t.app, t.baseUrl);
    await obtainCode(browser, realm, { clientId: appOne.clientId, ...person });
    const ask = (value: string) =>
      obtainCode(browser, realm, { clientId: appOne.clientId, ...person, params: { claims: JSON.stringify({ id_token: { sub: { value } } }), prompt: 'none' } });
    const answered = await ask(sub);
    expect(answered.code).toEqual(expect.any(String));
    const exchanged = await postForm(
      t.app,
      `${realmPath(realm)}/access_token`,
      { grant_type: 'authorization_code', code: answered.code, code_verifier: answered.verifier, redirect_uri: REDIRECT_URI },
      { authorization: basic(appOne.clientId, appOne.secret) },
    );
    expect(decodeJwt(exchanged.json().id_token as string).sub).toBe(sub);
    const refused = await ask(person.sub).catch(() => undefined);
    expect(refused?.code ?? null).toBeNull();
  });
});
