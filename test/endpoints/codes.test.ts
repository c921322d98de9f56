import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { authorize, codeRequest, completeFlow, confidentialClient, expectCode, freshRealm, issuerOf } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, obtainCode } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { verifyIdToken } from '../support/users.js';

/**
 * The authorization side of codes: what a code is bound to when it is delivered. The
 * exchange goes through the token endpoint (RFC 6749 §4.1.3).
 */
describe('authorization codes', () => {
  let t: TestApp & { clock: TestClock };
  let realm: string;
  let clientId: string;
  let person: { username: string; password: string };

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  const exchange = (r: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(t.app, `${realmPath(r)}/access_token`, { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, ...form }, headers);

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    realm = await freshRealm(t);
    const setup = await codeFlowSetup(t.admin, realm);
    clientId = setup.clientId;
    person = { username: setup.username, password: setup.password };
  });
  afterAll(() => t.close());

  it('is delivered by a 303 with state and iss, and stored only as a hash', async () => {
    const { code, state, iss, final } = await obtainCode(browser(), realm, { clientId, ...person, params: { state: 'a b&c=d/é' } });
    expect(final.statusCode).toBe(303);
    expect(state).toBe('a b&c=d/é');
    expect(iss).toBe(issuerOf(realm));
    expect(Buffer.from(code, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows = await t.store.db.query('select * from authorization_codes where realm = $1', [realm]);
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toContain(code);
  });

  it('is exchanged by its client with the verifier, for the requested scope and nonce', async () => {
    const { code, verifier } = await obtainCode(browser(), realm, { clientId, ...person, params: { scope: 'openid profile', nonce: 'n-0S6_WzA2Mj' } });
    const response = await exchange(realm, { code, code_verifier: verifier, client_id: clientId });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.scope).toBe('openid profile');
    const { payload } = await verifyIdToken(t.app, realm, body.id_token, { issuer: issuerOf(realm), audience: clientId });
    expect(payload.nonce).toBe('n-0S6_WzA2Mj');
  });

  it('is bound to its client: another client cannot exchange it, and its own still can', async () => {
    const other = await codeFlowSetup(t.admin, realm, { username: person.username, password: person.password });
    const { code, verifier } = await obtainCode(browser(), realm, { clientId, ...person });
    const stolen = await exchange(realm, { code, code_verifier: verifier, client_id: other.clientId });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().error).toBe('invalid_grant');

    const own = await exchange(realm, { code, code_verifier: verifier, client_id: clientId });
    expect(own.statusCode, own.body).toBe(200);
  });

  it('is unknown in another realm, even to a client with the same client_id', async () => {
    const otherRealm = await freshRealm(t);
    await t.admin.createClient(otherRealm, {
      client_id: clientId,
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    const { code, verifier } = await obtainCode(browser(), realm, { clientId, ...person });
    const elsewhere = await exchange(otherRealm, { code, code_verifier: verifier, client_id: clientId });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error).toBe('invalid_grant');
    expect((await exchange(realm, { code, code_verifier: verifier, client_id: clientId })).statusCode).toBe(200);
  });

  it('is bound to the code_challenge: a wrong or missing verifier fails', async () => {
    const wrong = await obtainCode(browser(), realm, { clientId, ...person });
    const other = await obtainCode(browser(), realm, { clientId, ...person });
    const response = await exchange(realm, { code: wrong.code, code_verifier: other.verifier, client_id: clientId });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');

    const missing = await obtainCode(browser(), realm, { clientId, ...person });
    const without = await exchange(realm, { code: missing.code, client_id: clientId });
    expect(without.statusCode).toBe(400);
    expect(without.json().error).toBe('invalid_grant');
  });

  it('needs the verifier whatever the settings when a confidential client sent a challenge', async () => {
    const confidential = await confidentialClient(t, realm);
    const { code } = await obtainCode(browser(), realm, { clientId: confidential.clientId, ...person });
    const response = await exchange(realm, { code }, { authorization: basic(confidential.clientId, confidential.secret) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });

  it('lets a confidential client exchange a code requested without PKCE', async () => {
    const confidential = await confidentialClient(t, realm);
    const b = browser();
    const start = await authorize(b, realm, codeRequest(confidential.clientId, { code_challenge: undefined, code_challenge_method: undefined }));
    const { final } = await completeFlow(b, start, person);
    const code = expectCode(final, { iss: issuerOf(realm) });
    const response = await exchange(realm, { code }, { authorization: basic(confidential.clientId, confidential.secret) });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('is bound to the redirect URI of the request', async () => {
    const { code, verifier } = await obtainCode(browser(), realm, { clientId, ...person });
    const response = await exchange(realm, { code, code_verifier: verifier, client_id: clientId, redirect_uri: 'https://app.example/other' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });

  it('works once: a second use fails and revokes the tokens of the first', async () => {
    const { code, verifier } = await obtainCode(browser(), realm, { clientId, ...person });
    const first = await exchange(realm, { code, code_verifier: verifier, client_id: clientId });
    expect(first.statusCode).toBe(200);
    const accessToken = first.json().access_token as string;
    const before = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${accessToken}` } });
    expect(before.statusCode).toBe(200);

    const second = await exchange(realm, { code, code_verifier: verifier, client_id: clientId });
    expect(second.statusCode).toBe(400);
    expect(second.json().error).toBe('invalid_grant');
    const after = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/userinfo`, headers: { authorization: `Bearer ${accessToken}` } });
    expect(after.statusCode).toBe(401);
  });

  it('lives code_lifetime seconds', async () => {
    const shortLived = await freshRealm(t, { code_lifetime: 1 });
    const setup = await codeFlowSetup(t.admin, shortLived);
    const { code, verifier } = await obtainCode(browser(), shortLived, { clientId: setup.clientId, username: setup.username, password: setup.password });
    await t.clock.advance(1200);
    const response = await exchange(shortLived, { code, code_verifier: verifier, client_id: setup.clientId });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });
});
