import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { DpopKey } from '../support/dpop.js';
import { freshRealm } from '../support/flow-helpers.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

/**
 * RFC 9449 §7.1 at UserInfo: a DPoP-bound token comes with the DPoP scheme and a proof of its
 * key that carries the token's hash; it is never accepted as a bearer token. Refusals are 401
 * with a DPoP challenge.
 */
describe('UserInfo with DPoP-bound access tokens (RFC 9449 §7)', () => {
  let t: TestApp;

  interface Setup {
    realm: string;
    client: ServiceClient;
    alice: TestUser;
    userinfoUrl: string;
  }

  async function setup(settings: Record<string, unknown> = {}): Promise<Setup> {
    const realm = await freshRealm(t, { ...NO_RATE_LIMITS, ...settings });
    const created = await t.admin.createClient(realm, { grant_types: ['password'], scope: 'openid profile' });
    const alice = await createUser(t.admin, realm, 'alice', { claims: { name: 'Alice Liddell' } });
    return { realm, client: { clientId: created.client_id, secret: created.client_secret as string }, alice, userinfoUrl: `${BASE_URL}${realmPath(realm)}/userinfo` };
  }

  /** A token for alice, bound to `key` when given (its proof made with the realm's nonce when asked). */
  async function tokenOf(s: Setup, key?: DpopKey, nonce?: string, scope = 'openid profile'): Promise<string> {
    const url = `${BASE_URL}${realmPath(s.realm)}/access_token`;
    const response = await postForm(t.app, `${realmPath(s.realm)}/access_token`, { grant_type: 'password', username: 'alice', password: s.alice.password, scope }, {
      authorization: basic(s.client.clientId, s.client.secret),
      ...(key ? { dpop: await key.proof('POST', url, nonce === undefined ? {} : { nonce }) } : {}),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().access_token;
  }

  const userinfo = (s: Setup, headers: Record<string, string>, method: 'GET' | 'POST' = 'GET') =>
    t.app.inject({ method, url: `${realmPath(s.realm)}/userinfo`, headers });

  function expectDpopChallenge(response: LightMyRequestResponse, error: string, description: RegExp) {
    expect(response.statusCode, response.body).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(new RegExp(`^DPoP realm="[^"]+", error="${error}", algs="[A-Za-z0-9 ]*ES256[A-Za-z0-9 ]*"$`));
    expect(response.json()).toEqual({ error, error_description: expect.stringMatching(description) });
  }

  let s: Setup;
  let key: DpopKey;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    s = await setup();
    key = await DpopKey.generate();
    token = await tokenOf(s, key);
  });
  afterAll(() => t.close());

  it('answers a DPoP-bound token sent with the DPoP scheme and a proof of its key carrying ath', async () => {
    const response = await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', s.userinfoUrl, { accessToken: token }) });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ sub: s.alice.sub, preferred_username: 'alice', name: 'Alice Liddell', updated_at: expect.any(Number) });
    const post = await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('POST', s.userinfoUrl, { accessToken: token }) }, 'POST');
    expect(post.statusCode, post.body).toBe(200);
  });

  it('refuses a DPoP-bound token presented as a bearer token (RFC 9449 §7.1)', async () => {
    expectDpopChallenge(await userinfo(s, { authorization: `Bearer ${token}` }), 'invalid_token', /bound to a DPoP key/);
    const form = await postForm(t.app, `${realmPath(s.realm)}/userinfo`, { access_token: token });
    expectDpopChallenge(form, 'invalid_token', /bound to a DPoP key/);
  });

  it('refuses a token without openid with 403 insufficient_scope in a DPoP challenge naming the scope (RFC 9449 §7.1, RFC 6750 §3.1)', async () => {
    const profileOnly = await tokenOf(s, key, undefined, 'profile');
    const response = await userinfo(s, { authorization: `DPoP ${profileOnly}`, dpop: await key.proof('GET', s.userinfoUrl, { accessToken: profileOnly }) });
    expect(response.statusCode, response.body).toBe(403);
    expect(response.headers['www-authenticate']).toMatch(/^DPoP realm="[^"]+", error="insufficient_scope", scope="openid", algs="[A-Za-z0-9 ]*ES256[A-Za-z0-9 ]*"$/);
    expect(response.json()).toEqual({ error: 'insufficient_scope', error_description: expect.stringMatching(/openid/) });
  });

  it('refuses the DPoP scheme without a proof', async () => {
    expectDpopChallenge(await userinfo(s, { authorization: `DPoP ${token}` }), 'invalid_dpop_proof', /proof is required/);
  });

  it('refuses a proof without ath, or with the hash of another token', async () => {
    expectDpopChallenge(await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', s.userinfoUrl) }), 'invalid_dpop_proof', /needs ath/);
    const other = await tokenOf(s, key);
    expectDpopChallenge(
      await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', s.userinfoUrl, { accessToken: other }) }),
      'invalid_dpop_proof',
      /ath does not match/,
    );
  });

  it('refuses a proof of another key, of another method or URL, or used before', async () => {
    const other = await DpopKey.generate();
    expectDpopChallenge(
      await userinfo(s, { authorization: `DPoP ${token}`, dpop: await other.proof('GET', s.userinfoUrl, { accessToken: token }) }),
      'invalid_token',
      /bound to another DPoP key/,
    );
    expectDpopChallenge(
      await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('POST', s.userinfoUrl, { accessToken: token }) }),
      'invalid_dpop_proof',
      /htm must be GET/,
    );
    expectDpopChallenge(
      await userinfo(s, { authorization: `DPoP ${token}`, dpop: await key.proof('GET', `${BASE_URL}${realmPath(s.realm)}/access_token`, { accessToken: token }) }),
      'invalid_dpop_proof',
      /htu must be/,
    );
    const proof = await key.proof('GET', s.userinfoUrl, { accessToken: token });
    expect((await userinfo(s, { authorization: `DPoP ${token}`, dpop: proof })).statusCode).toBe(200);
    expectDpopChallenge(await userinfo(s, { authorization: `DPoP ${token}`, dpop: proof }), 'invalid_dpop_proof', /used before/);
  });

  it('refuses a bearer token sent with the DPoP scheme', async () => {
    const bearer = await tokenOf(s);
    expectDpopChallenge(
      await userinfo(s, { authorization: `DPoP ${bearer}`, dpop: await key.proof('GET', s.userinfoUrl, { accessToken: bearer }) }),
      'invalid_token',
      /not bound to a DPoP key/,
    );
    // As a bearer token it is still what it always was.
    expect((await userinfo(s, { authorization: `Bearer ${bearer}` })).statusCode).toBe(200);
  });

  it('refuses an unknown token sent with the DPoP scheme with a DPoP challenge, and a malformed header with 400', async () => {
    expectDpopChallenge(
      await userinfo(s, { authorization: 'DPoP unknown-token', dpop: await key.proof('GET', s.userinfoUrl, { accessToken: 'unknown-token' }) }),
      'invalid_token',
      /invalid, expired or revoked/,
    );
    const malformed = await userinfo(s, { authorization: 'DPoP two tokens' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.headers['www-authenticate']).toMatch(/^DPoP .*error="invalid_request"/);
  });

  it('checks a JWT access token bound to a key as it checks a stored one', async () => {
    const jwt = await setup({ stateless_tokens: true });
    const jwtToken = await tokenOf(jwt, key);
    expect((await userinfo(jwt, { authorization: `DPoP ${jwtToken}`, dpop: await key.proof('GET', jwt.userinfoUrl, { accessToken: jwtToken }) })).statusCode).toBe(200);
    expectDpopChallenge(await userinfo(jwt, { authorization: `Bearer ${jwtToken}` }), 'invalid_token', /bound to a DPoP key/);
  });

  it("demands the realm's nonce with dpop_nonce: 401 use_dpop_nonce with DPoP-Nonce, then accepted", async () => {
    const n = await setup({ dpop_nonce: true });
    const tokenEndpoint = await postForm(t.app, `${realmPath(n.realm)}/access_token`, { grant_type: 'password', username: 'alice', password: n.alice.password, scope: 'openid' }, {
      authorization: basic(n.client.clientId, n.client.secret),
      dpop: await key.proof('POST', `${BASE_URL}${realmPath(n.realm)}/access_token`),
    });
    const nonce = tokenEndpoint.headers['dpop-nonce'] as string;
    const bound = await tokenOf(n, key, nonce);
    const first = await userinfo(n, { authorization: `DPoP ${bound}`, dpop: await key.proof('GET', n.userinfoUrl, { accessToken: bound }) });
    expectDpopChallenge(first, 'use_dpop_nonce', /needs a nonce/);
    expect(first.headers['dpop-nonce']).toBe(nonce);
    const retry = await userinfo(n, { authorization: `DPoP ${bound}`, dpop: await key.proof('GET', n.userinfoUrl, { accessToken: bound, nonce }) });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['dpop-nonce']).toBe(nonce);
  });
});
