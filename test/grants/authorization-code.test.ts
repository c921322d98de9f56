import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode, pkce } from '../support/flow.js';
import { type ServiceClient, basic, introspect, postForm } from '../support/oauth.js';
import { verifyIdToken } from '../support/users.js';

const ISSUER = 'https://auth.test/oauth2/alpha';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

/**
 * The exchange of a code at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5). What a
 * code is bound to at delivery is tested in test/endpoints/codes.test.ts.
 */
describe('token endpoint: authorization code grant', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let person: { username: string; password: string };
  /** A public client: PKCE always. */
  let spaId: string;
  /** A confidential client, which may leave PKCE out. */
  let web: ServiceClient;
  let auditor: ServiceClient;

  const codeFor = (clientId: string, params: Record<string, string> = {}) => obtainCode(browser, 'alpha', { clientId, ...person, params });
  /** The exchange of the public client, which names itself with client_id. */
  const exchange = (form: Record<string, string>) =>
    postForm(t.app, '/oauth2/alpha/access_token', { grant_type: 'authorization_code', client_id: spaId, ...form });
  const exchangeAsWeb = (form: Record<string, string>) =>
    postForm(t.app, '/oauth2/alpha/access_token', { grant_type: 'authorization_code', ...form }, { authorization: basic(web.clientId, web.secret) });
  const active = async (token: string) => (await introspect(t.app, 'alpha', auditor, token)).json().active;
  const expectInvalidGrant = (response: { statusCode: number; json(): { error: string } }) => {
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { access_token_lifetime: 600 });
    const spa = await codeFlowSetup(t.admin, 'alpha', { claims: { name: 'Alice Liddell' } });
    spaId = spa.clientId;
    person = { username: spa.username, password: spa.password };
    const created = await t.admin.createClient('alpha', {
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    web = { clientId: created.client_id, secret: created.client_secret as string };
    auditor = await t.admin.serviceClient('alpha', '', { introspect_any_token: true });
    // One browser: its session and remembered consent make later codes quick to get.
    browser = new TestBrowser(t.app, t.baseUrl);
  });
  afterAll(() => t.close());

  it('exchanges a code and its PKCE verifier for the tokens of the person who signed in', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { code, verifier } = await codeFor(spaId, { nonce: 'n-0S6_WzA2Mj' });
    const response = await exchange({ code, code_verifier: verifier, redirect_uri: REDIRECT_URI });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'openid profile',
      refresh_token: expect.any(String), // the client lists refresh_token
      id_token: expect.any(String),
    });

    const { payload, protectedHeader } = await verifyIdToken(t.app, 'alpha', body.id_token, { issuer: ISSUER, audience: spaId });
    expect(protectedHeader.alg).toBe('RS256');
    const { sub } = (await t.admin.request('GET', '/realms/alpha/users/alice')).json();
    expect(payload).toMatchObject({ sub, nonce: 'n-0S6_WzA2Mj', amr: ['pwd'], name: 'Alice Liddell', preferred_username: 'alice' });
    expect(payload.at_hash).toBe(atHash(body.access_token));
    expect(payload.sid).toMatch(UUID);
    expect(payload.auth_time).toBeGreaterThanOrEqual(before - 1);

    expect((await introspect(t.app, 'alpha', auditor, body.access_token)).json()).toMatchObject({
      active: true,
      client_id: spaId,
      username: 'alice',
      sub,
      scope: 'openid profile',
    });
  });

  it('carries the session of the sign-in: a later code of the same session has its sid and auth_time', async () => {
    const idToken = async () => {
      const { code, verifier } = await codeFor(spaId);
      const body = (await exchange({ code, code_verifier: verifier, redirect_uri: REDIRECT_URI })).json();
      return (await verifyIdToken(t.app, 'alpha', body.id_token, { issuer: ISSUER, audience: spaId })).payload;
    };
    const first = await idToken();
    const second = await idToken();
    expect(second.sid).toBe(first.sid);
    expect(second.auth_time).toBe(first.auth_time);
    expect(second.nonce).toBeUndefined();
  });

  it('refuses a wrong, missing or malformed verifier, and the failed attempt spends the code', async () => {
    const cases: Array<Record<string, string>> = [
      { code_verifier: pkce().verifier }, // well formed, another challenge's
      {},
      { code_verifier: 'too-short' },
      { code_verifier: 'a'.repeat(129) },
    ];
    for (const form of cases) {
      const { code, verifier } = await codeFor(spaId);
      expectInvalidGrant(await exchange({ code, redirect_uri: REDIRECT_URI, ...form }));
      expectInvalidGrant(await exchange({ code, redirect_uri: REDIRECT_URI, code_verifier: verifier }));
    }
  });

  it('refuses a verifier for a code issued without a challenge: a PKCE downgrade (RFC 9700 §2.1.1)', async () => {
    const withoutPkce = { code_challenge: '', code_challenge_method: '' };
    const downgraded = await codeFor(web.clientId, withoutPkce);
    expectInvalidGrant(await exchangeAsWeb({ code: downgraded.code, redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier }));

    const plain = await codeFor(web.clientId, withoutPkce);
    const response = await exchangeAsWeb({ code: plain.code, redirect_uri: REDIRECT_URI });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().refresh_token).toBeUndefined(); // this client does not list refresh_token
  });

  it('needs the redirect_uri again, identically, when the authorization request named it', async () => {
    for (const redirectUri of [undefined, `${REDIRECT_URI}/`, REDIRECT_URI.toUpperCase(), `${REDIRECT_URI}?x=1`]) {
      const { code, verifier } = await codeFor(spaId);
      const form = { code, code_verifier: verifier, ...(redirectUri === undefined ? {} : { redirect_uri: redirectUri }) };
      expectInvalidGrant(await exchange(form));
    }
  });

  it('lets the exchange leave redirect_uri out when the request did, but not name another', async () => {
    const omitted = { redirect_uri: '' };
    const silent = await codeFor(spaId, omitted);
    expect((await exchange({ code: silent.code, code_verifier: silent.verifier })).statusCode).toBe(200);

    const named = await codeFor(spaId, omitted);
    expect((await exchange({ code: named.code, code_verifier: named.verifier, redirect_uri: REDIRECT_URI })).statusCode).toBe(200);

    const other = await codeFor(spaId, omitted);
    expectInvalidGrant(await exchange({ code: other.code, code_verifier: other.verifier, redirect_uri: 'https://app.example/other' }));
  });

  it('requires the code, and refuses an unknown one', async () => {
    const missing = await exchange({ code_verifier: pkce().verifier, redirect_uri: REDIRECT_URI });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
    expectInvalidGrant(await exchange({ code: 'never-issued', code_verifier: pkce().verifier, redirect_uri: REDIRECT_URI }));
  });

  it('fails a second use and revokes every token of the first, those of its refreshes included', async () => {
    const { code, verifier } = await codeFor(spaId);
    const form = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI };
    const first = (await exchange(form)).json();
    const refreshed = (
      await postForm(t.app, '/oauth2/alpha/access_token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: spaId })
    ).json();
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    const tokens = [first.access_token, refreshed.access_token, refreshed.refresh_token];
    for (const token of tokens) expect(await active(token)).toBe(true);

    const second = await exchange(form);
    expect(second.statusCode).toBe(400);
    expect(second.json()).toEqual({ error: 'invalid_grant', error_description: 'the code was already used; its tokens are revoked' });
    for (const token of tokens) expect(await active(token)).toBe(false);
  });

  it('gives a code to exactly one of two concurrent exchanges, and no token of the grant survives the other', async () => {
    for (let round = 0; round < 6; round++) {
      const { code, verifier } = await codeFor(spaId);
      const form = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI };
      const responses = await Promise.all([exchange(form), exchange(form)]);
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400]);
      const winner = responses.find((response) => response.statusCode === 200)!.json();
      expectInvalidGrant(responses.find((response) => response.statusCode === 400)!);
      for (const token of [winner.access_token, winner.refresh_token]) expect(await active(token)).toBe(false);
    }
  });
});
