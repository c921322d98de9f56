import { generateKeyPair, SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, expectCode, expectErrorPage, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, hiddenInputs, location, obtainCode } from '../support/flow.js';
import { introspect, postForm, realmPath } from '../support/oauth.js';

const LOGGED_OUT = 'https://app.example/logged-out';

describe('RP-initiated logout', () => {
  let t: TestApp;
  let realm: string;
  let clientId: string;
  let person: { username: string; password: string };

  const browser = () => new TestBrowser(t.app, t.baseUrl);
  const endSessionUrl = (r: string, params: Record<string, string> = {}) =>
    `${realmPath(r)}/connect/endSession${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ''}`;

  /** A browser signed in to the realm, which allowed the client `openid profile`; and the code it got. */
  const signedIn = async (r = realm, client = clientId, who = person) => {
    const b = browser();
    const result = await obtainCode(b, r, { clientId: client, ...who });
    return { b, ...result };
  };

  /** Whether the browser is still signed in: a silent request gets a code rather than login_required. */
  const isSignedIn = async (b: TestBrowser, r = realm, client = clientId): Promise<boolean> => {
    const response = await authorize(b, r, codeRequest(client, { prompt: 'none' }));
    const params = new URL(location(response)).searchParams;
    if (params.get('code')) return true;
    expect(params.get('error')).toBe('login_required');
    return false;
  };

  /** The ID token of a code flow, from the token endpoint. */
  const idTokenOf = async (code: string, verifier: string, client = clientId, r = realm): Promise<string> => {
    const response = await postForm(t.app, `${realmPath(r)}/access_token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client,
      redirect_uri: REDIRECT_URI,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().id_token as string;
  };

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t);
    const setup = await codeFlowSetup(t.admin, realm, { client: { post_logout_redirect_uris: [LOGGED_OUT] } });
    clientId = setup.clientId;
    person = { username: setup.username, password: setup.password };
  });
  afterAll(() => t.close());

  describe('without id_token_hint', () => {
    it('shows a confirmation form with a hidden csrf and does not end the session', async () => {
      const { b } = await signedIn();
      const page = await b.get(endSessionUrl(realm));
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(page.body).not.toMatch(/<script/i);
      expect(page.body).toMatch(/<form method="post">/);
      expect(page.body).toMatch(/<button[^>]*name="decision"[^>]*value="allow"/);
      expect(hiddenInputs(page.body).csrf).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(await isSignedIn(b)).toBe(true);
    });

    it('ends the session on confirmation and redirects to the registered post_logout_redirect_uri with state', async () => {
      const { b } = await signedIn();
      const url = endSessionUrl(realm, { client_id: clientId, post_logout_redirect_uri: LOGGED_OUT, state: 'a b&c=d/é' });
      const page = await b.get(url);
      expect(page.statusCode).toBe(200);
      const answer = await b.submit(endSessionUrl(realm), page, { decision: 'allow' });
      expect(answer.statusCode).toBe(303);
      const target = new URL(location(answer));
      expect(`${target.origin}${target.pathname}`).toBe(LOGGED_OUT);
      expect(target.searchParams.get('state')).toBe('a b&c=d/é');

      expect(b.cookies.has(`rg_session_${realm}`)).toBe(false);
      expect(await isSignedIn(b)).toBe(false);
      const next = await authorize(b, realm, codeRequest(clientId));
      expect(redirectPath(next)).toBe(`${realmPath(realm)}/login`);
    });

    it('deletes the session from the database, so that a copy of the cookie is worth nothing', async () => {
      const { b } = await signedIn();
      const copy = browser();
      copy.cookies.set(`rg_session_${realm}`, b.cookies.get(`rg_session_${realm}`)!);
      const page = await b.get(endSessionUrl(realm));
      expect((await b.submit(endSessionUrl(realm), page, { decision: 'allow' })).statusCode).toBe(200);
      expect(await isSignedIn(copy)).toBe(false);
    });

    it('keeps the session when the person chooses to stay signed in', async () => {
      const { b } = await signedIn();
      const page = await b.get(endSessionUrl(realm));
      const answer = await b.submit(endSessionUrl(realm), page, { decision: 'deny' });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers.location).toBeUndefined();
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses a confirmation without csrf or with a csrf from another browser, and keeps the session', async () => {
      const { b } = await signedIn();
      const missing = await b.post(endSessionUrl(realm), { decision: 'allow' });
      expectErrorPage(missing);

      const other = await signedIn();
      const theirs = hiddenInputs((await other.b.get(endSessionUrl(realm))).body).csrf!;
      const forged = await b.post(endSessionUrl(realm), { decision: 'allow', csrf: theirs });
      expectErrorPage(forged);
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses a POST of a cross-site form without a decision by showing the confirmation page', async () => {
      const { b } = await signedIn();
      const response = await b.post(endSessionUrl(realm), {});
      expect(response.statusCode).toBe(200);
      expect(response.body).toMatch(/name="decision"/);
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses an unregistered post_logout_redirect_uri with the 400 page, never a redirect', async () => {
      const { b } = await signedIn();
      for (const uri of ['https://evil.example/logged-out', REDIRECT_URI]) {
        expectErrorPage(await b.get(endSessionUrl(realm, { client_id: clientId, post_logout_redirect_uri: uri })));
      }
      // Without a client to register it, no URI can be trusted.
      expectErrorPage(await b.get(endSessionUrl(realm, { post_logout_redirect_uri: LOGGED_OUT })));
      expect(await isSignedIn(b)).toBe(true);
    });

    it.each([
      ['a longer path', `${LOGGED_OUT}/more`],
      ['a prefix', 'https://app.example/logged'],
      ['a trailing slash', `${LOGGED_OUT}/`],
      ['an added query', `${LOGGED_OUT}?x=1`],
    ])('refuses a post_logout_redirect_uri that only resembles the registered one: %s', async (_label, uri) => {
      const response = await browser().get(endSessionUrl(realm, { client_id: clientId, post_logout_redirect_uri: uri }));
      expectErrorPage(response);
    });

    it('refuses an unknown client_id with the 400 page', async () => {
      expectErrorPage(await browser().get(endSessionUrl(realm, { client_id: 'nobody', post_logout_redirect_uri: LOGGED_OUT })));
    });

    it('redirects at once when nobody is signed in', async () => {
      const response = await browser().get(endSessionUrl(realm, { client_id: clientId, post_logout_redirect_uri: LOGGED_OUT, state: 's' }));
      expect(response.statusCode).toBe(303);
      expect(location(response)).toBe(`${LOGGED_OUT}?state=s`);
    });
  });

  describe('with id_token_hint', () => {
    it('ends the session of the person it names without confirmation, and redirects with state', async () => {
      const { b, code, verifier } = await signedIn();
      const idToken = await idTokenOf(code, verifier);
      const response = await b.get(endSessionUrl(realm, { id_token_hint: idToken, post_logout_redirect_uri: LOGGED_OUT, state: 'bye' }));
      expect(response.statusCode).toBe(303);
      const target = new URL(location(response));
      expect(`${target.origin}${target.pathname}`).toBe(LOGGED_OUT);
      expect(target.searchParams.get('state')).toBe('bye');
      expect(await isSignedIn(b)).toBe(false);
    });

    it('revokes the tokens issued under the ended session, and only those', async () => {
      const auditor = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
      const exchange = async (code: string, verifier: string) =>
        (
          await postForm(t.app, `${realmPath(realm)}/access_token`, {
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            client_id: clientId,
            redirect_uri: REDIRECT_URI,
          })
        ).json() as { access_token: string; refresh_token: string; id_token: string };
      const active = async (token: string) => (await introspect(t.app, realm, auditor, token)).json().active as boolean;

      const here = await signedIn();
      const ended = await exchange(here.code, here.verifier);
      const elsewhere = await signedIn(); // the same person in another browser: another session
      const kept = await exchange(elsewhere.code, elsewhere.verifier);

      const response = await here.b.get(endSessionUrl(realm, { id_token_hint: ended.id_token }));
      expect(response.statusCode).toBe(200);
      for (const token of [ended.access_token, ended.refresh_token]) expect(await active(token)).toBe(false);
      for (const token of [kept.access_token, kept.refresh_token]) expect(await active(token)).toBe(true);
    });

    it('denies the stateless access tokens issued under the ended session', async () => {
      const stateless = await freshRealm(t, { stateless_tokens: true });
      const setup = await codeFlowSetup(t.admin, stateless);
      const auditor = await t.admin.serviceClient(stateless, '', { introspect_any_token: true });
      const { b, code, verifier } = await signedIn(stateless, setup.clientId, setup);
      const tokens = (
        await postForm(t.app, `${realmPath(stateless)}/access_token`, {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: setup.clientId,
          redirect_uri: REDIRECT_URI,
        })
      ).json() as { access_token: string; id_token: string };
      expect(tokens.access_token.split('.')).toHaveLength(3);
      expect((await introspect(t.app, stateless, auditor, tokens.access_token)).json().active).toBe(true);

      expect((await b.get(endSessionUrl(stateless, { id_token_hint: tokens.id_token }))).statusCode).toBe(200);
      expect((await introspect(t.app, stateless, auditor, tokens.access_token)).json()).toEqual({ active: false });
    });

    it('asks for confirmation when the hint names another person', async () => {
      const setup = await codeFlowSetup(t.admin, realm, { username: 'bob', password: 'bob password 123' });
      const bob = await signedIn(realm, setup.clientId, { username: 'bob', password: 'bob password 123' });
      const bobToken = await idTokenOf(bob.code, bob.verifier, setup.clientId);
      const { b } = await signedIn();
      const response = await b.get(endSessionUrl(realm, { id_token_hint: bobToken }));
      expect(response.statusCode).toBe(200);
      expect(hiddenInputs(response.body).csrf).toEqual(expect.any(String));
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses a forged hint with the 400 page and keeps the session', async () => {
      const { b, code, verifier } = await signedIn();
      const idToken = await idTokenOf(code, verifier);

      // The payload changed under the realm signature.
      const [header, , signature] = idToken.split('.');
      const claims = { ...decodeJwt(idToken), sub: '00000000-0000-0000-0000-000000000000' };
      const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      // The same claims signed with a key of the attacker.
      const { privateKey } = await generateKeyPair('ES256');
      const selfSigned = await new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(privateKey);
      // No signature at all.
      const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${idToken.split('.')[1]}.`;

      for (const hint of [tampered, selfSigned, unsigned, 'not-a-jwt']) {
        const response = await b.get(endSessionUrl(realm, { id_token_hint: hint, post_logout_redirect_uri: LOGGED_OUT, state: 's' }));
        expectErrorPage(response);
      }
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses an ID token of another realm with the 400 page', async () => {
      const other = await freshRealm(t);
      const setup = await codeFlowSetup(t.admin, other, { client: { post_logout_redirect_uris: [LOGGED_OUT] } });
      const elsewhere = await signedIn(other, setup.clientId, { username: setup.username, password: setup.password });
      const foreignToken = await idTokenOf(elsewhere.code, elsewhere.verifier, setup.clientId, other);

      const { b } = await signedIn();
      expectErrorPage(await b.get(endSessionUrl(realm, { id_token_hint: foreignToken })));
      expect(await isSignedIn(b)).toBe(true);
    });

    it('refuses a client_id that is not the audience of the hint', async () => {
      const otherClient = await codeFlowSetup(t.admin, realm, { client: { post_logout_redirect_uris: [LOGGED_OUT] } });
      const { b, code, verifier } = await signedIn();
      const idToken = await idTokenOf(code, verifier);
      const response = await b.get(
        endSessionUrl(realm, { id_token_hint: idToken, client_id: otherClient.clientId, post_logout_redirect_uri: LOGGED_OUT }),
      );
      expectErrorPage(response);
      expect(await isSignedIn(b)).toBe(true);
    });

    it('checks post_logout_redirect_uri against the client of the hint', async () => {
      const { b, code, verifier } = await signedIn();
      const idToken = await idTokenOf(code, verifier);
      expectErrorPage(await b.get(endSessionUrl(realm, { id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' })));
      expect(await isSignedIn(b)).toBe(true);
    });
  });

  it('signs out in one realm only', async () => {
    const other = await freshRealm(t);
    const setup = await codeFlowSetup(t.admin, other);
    const b = browser();
    await obtainCode(b, realm, { clientId, ...person });
    await obtainCode(b, other, { clientId: setup.clientId, username: setup.username, password: setup.password });
    const page = await b.get(endSessionUrl(other));
    expect((await b.submit(endSessionUrl(other), page, { decision: 'allow' })).statusCode).toBe(200);
    expect(await isSignedIn(b, other, setup.clientId)).toBe(false);
    expectCode(await authorize(b, realm, codeRequest(clientId)), { iss: issuerOf(realm) });
  });
});
