import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, NO_RATE_LIMITS, startTestApp } from '../support/app.js';
import { confidentialClient, freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI } from '../support/flow.js';
import { type ServiceClient, basic, introspect, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens, tokenRequest } from '../support/users.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * CONTRACT.md §13, RFC 7662 §2.2: a pairwise client never learns who the person is beyond its own
 * sector's `sub`: no username, no local subject, no other sector's subject, on any surface.
 */
describe('what a pairwise client never sees of a person', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A confidential client of the password and code grants (and token exchange), with `redirect` as its one redirect URI. */
  const client = (realm: string, redirect: string, extra: Record<string, unknown> = {}): Promise<ServiceClient> =>
    confidentialClient(t, realm, { redirect_uris: [redirect], grant_types: ['authorization_code', 'password', 'refresh_token', TOKEN_EXCHANGE], ...extra });

  /** A realm with a public client, two pairwise clients of different sectors, and a public and a pairwise resource server. */
  async function realmWithClients(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, { ...NO_RATE_LIMITS, ...settings });
    return {
      realm,
      publicApp: await client(realm, 'https://public.example/callback'),
      appOne: await client(realm, REDIRECT_URI, { subject_type: 'pairwise' }),
      other: await client(realm, 'https://other.example/callback', { subject_type: 'pairwise' }),
      publicApi: await t.admin.serviceClient(realm, '', { introspect_any_token: true }),
      pairwiseApi: await client(realm, 'https://other.example/api', { subject_type: 'pairwise', introspect_any_token: true, grant_types: ['client_credentials'] }),
    };
  }

  const subOf = async (realm: string, c: ServiceClient, person: TestUser) => {
    const tokens = await passwordTokens(t.app, realm, c, person, 'openid');
    return { sub: decodeJwt(tokens.id_token!).sub!, tokens };
  };

  /** The person's username and local subject appear nowhere in `text`. */
  const expectNothingLocal = (text: string, person: TestUser) => {
    expect(text).not.toContain(person.sub);
    expect(text).not.toContain(`"${person.username}"`);
  };

  const introspectJwt = (realm: string, c: ServiceClient, token: string) =>
    postForm(t.app, `${realmPath(realm)}/introspect`, { token }, { authorization: basic(c.clientId, c.secret), accept: 'application/token-introspection+jwt' });

  for (const stateless of [false, true]) {
    it(`introspection by the pairwise client of its own tokens: its sub, no username, no local subject, in JSON and as a JWT (${stateless ? 'JWT' : 'opaque'} tokens)`, async () => {
      const { realm, appOne } = await realmWithClients({ stateless_tokens: stateless });
      const person = await createUser(t.admin, realm, 'private-person');
      const { sub, tokens } = await subOf(realm, appOne, person);
      for (const token of [tokens.access_token, tokens.refresh_token!]) {
        const answer = await introspect(t.app, realm, appOne, token);
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json()).toMatchObject({ active: true, sub });
        expect(answer.json()).not.toHaveProperty('username');
        expectNothingLocal(answer.body, person);
      }
      const signed = await introspectJwt(realm, appOne, tokens.access_token);
      expect(signed.statusCode, signed.body).toBe(200);
      const claims = decodeJwt(signed.body);
      expect(claims.token_introspection).toMatchObject({ active: true, sub });
      expect(claims.token_introspection).not.toHaveProperty('username');
      expectNothingLocal(JSON.stringify(claims), person);
    });
  }

  it('a pairwise resource server introspecting any token sees its own sector\'s sub, never the username, the local subject or another sector\'s sub', async () => {
    const { realm, publicApp, appOne, pairwiseApi } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'seen-by-api');
    const apiSub = (await subOf(realm, await client(realm, 'https://other.example/elsewhere', { subject_type: 'pairwise' }), person)).sub;
    const { sub: appOneSub, tokens: appOneTokens } = await subOf(realm, appOne, person);
    const publicTokens = await passwordTokens(t.app, realm, publicApp, person, 'openid');
    for (const token of [appOneTokens.access_token, publicTokens.access_token]) {
      const answer = await introspect(t.app, realm, pairwiseApi, token);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toMatchObject({ active: true, sub: apiSub });
      expect(answer.json()).not.toHaveProperty('username');
      expectNothingLocal(answer.body, person);
      expect(answer.body).not.toContain(appOneSub);
    }
  });

  it('a public resource server keeps the contract: the username and the sub of the token\'s client', async () => {
    const { realm, appOne, publicApi } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'seen-by-public-api');
    const { sub, tokens } = await subOf(realm, appOne, person);
    const answer = await introspect(t.app, realm, publicApi, tokens.access_token);
    expect(answer.json()).toMatchObject({ active: true, sub, username: 'seen-by-public-api' });
  });

  it('token exchange: a person acting is named by the pairwise client\'s sub, and a pairwise resource server does not see another sector\'s actor', async () => {
    const { realm, publicApp, appOne, pairwiseApi } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'subject-person');
    const actor = await createUser(t.admin, realm, 'acting-person');
    const { tokens: subjectTokens } = await subOf(realm, appOne, person);
    const { sub: actorSub, tokens: actorTokens } = await subOf(realm, appOne, actor);
    const exchanged = await tokenRequest(t.app, realm, appOne, {
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectTokens.access_token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: actorTokens.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    expectNothingLocal(exchanged.body, person);
    expectNothingLocal(exchanged.body, actor);
    const own = await introspect(t.app, realm, appOne, exchanged.json().access_token as string);
    expect(own.json()).toMatchObject({ active: true, act: { sub: actorSub } });
    expectNothingLocal(own.body, person);
    expectNothingLocal(own.body, actor);

    // A public client's exchanged token names its actor by the local subject: a pairwise resource server of another sector is not told it.
    const publicSubject = await passwordTokens(t.app, realm, publicApp, person, 'openid');
    const publicActor = await passwordTokens(t.app, realm, publicApp, actor, 'openid');
    const publicExchanged = await tokenRequest(t.app, realm, publicApp, {
      grant_type: TOKEN_EXCHANGE,
      subject_token: publicSubject.access_token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: publicActor.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(publicExchanged.statusCode, publicExchanged.body).toBe(200);
    const seenByApi = await introspect(t.app, realm, pairwiseApi, publicExchanged.json().access_token as string);
    expect(seenByApi.json()).toMatchObject({ active: true });
    expect(seenByApi.json()).not.toHaveProperty('act');
    expectNothingLocal(seenByApi.body, person);
    expectNothingLocal(seenByApi.body, actor);
  });

  it('refusals name no person: a pairwise client presenting another client\'s token, or a stale one, learns nothing of who it was', async () => {
    const { realm, publicApp, appOne } = await realmWithClients();
    const person = await createUser(t.admin, realm, 'refused-person');
    const publicTokens = await passwordTokens(t.app, realm, publicApp, person, 'openid');
    const refused = await tokenRequest(t.app, realm, appOne, { grant_type: TOKEN_EXCHANGE, subject_token: publicTokens.access_token, subject_token_type: ACCESS_TOKEN_TYPE });
    expect(refused.statusCode).toBe(400);
    expectNothingLocal(refused.body, person);
    const userinfo = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${publicTokens.access_token}x` } });
    expect(userinfo.statusCode).toBe(401);
    expectNothingLocal(userinfo.body + JSON.stringify(userinfo.headers), person);
  });

  it('UserInfo and the JWT access token of a pairwise client carry its sub alone', async () => {
    const { realm, appOne } = await realmWithClients({ stateless_tokens: true });
    const person = await createUser(t.admin, realm, 'info-person');
    const { sub, tokens } = await subOf(realm, appOne, person);
    expectNothingLocal(JSON.stringify(decodeJwt(tokens.access_token)), person);
    expect(decodeJwt(tokens.access_token).sub).toBe(sub);
    const info = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json().sub).toBe(sub);
    expect(info.body).not.toContain(person.sub);
  });
});
