import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, expectErrorPage, query } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser } from '../support/users.js';
import { personIn, securityRealm } from './support.js';

const LOGGED_OUT = 'https://app.example/signed-out';

/**
 * URIs that differ from a registered one in a way a lenient comparison (prefix, host-only,
 * case-insensitive, normalising or URL-parsing) would forgive: each must be refused.
 */
function nearMisses(registered: string): string[] {
  const url = new URL(registered);
  return [
    `${registered}/`,
    `${registered}x`,
    `${registered}/../../evil`,
    `${registered}?next=https://evil.example/`,
    `${registered}#frag`,
    `${registered}%2F..%2Fevil`,
    `${url.protocol}//${url.host}:443${url.pathname}`,
    `${url.protocol}//${url.host.toUpperCase()}${url.pathname}`,
    `${url.protocol}//${url.host}${url.pathname.toUpperCase()}`,
    `http://${url.host}${url.pathname}`,
    `${url.protocol}//${url.host}.evil.example${url.pathname}`,
    `${url.protocol}//${url.host}@evil.example${url.pathname}`,
    `${url.protocol}//evil.example\\@${url.host}${url.pathname}`,
    `${url.protocol}//evil.example/${url.host}${url.pathname}`,
    `//evil.example${url.pathname}`,
    `${url.protocol}//evil.example${url.pathname}`,
    ` ${registered}`,
    `${registered} `,
    `${registered}\t`,
    `${registered}\u0000`,
    'javascript:alert(document.domain)//',
    'data:text/html,<script>alert(1)</script>',
  ];
}

/** The 400 page, with nothing of the unregistered URI in a header a browser would follow. */
function expectRefusedPage(response: LightMyRequestResponse, uri: string): void {
  expectErrorPage(response);
  expect(response.headers.refresh, uri).toBeUndefined();
  expect(response.body, uri).not.toMatch(/http-equiv="refresh"/i);
}

/**
 * RFC 9700 §4.1 (redirect URI validation) and §4.11.2 (the authorization server as an open
 * redirector): the server sends a browser only to its own pages or to a URI registered,
 * exactly, for the client of the request; never to a URI that a request names otherwise, not
 * even to report an error. Sign-out (OIDC RP-Initiated Logout §3) holds its
 * post_logout_redirect_uri to the same rule, and the sign-in that the account and CIBA pages
 * begin always returns to that page.
 */
describe('open redirects', () => {
  let t: TestApp;
  let realm: string;
  let clientId: string;
  let otherClientId: string;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await securityRealm(t);
    user = await personIn(t, realm);
    const client = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [LOGGED_OUT],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    clientId = client.client_id;
    const other = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: ['https://other.example/callback'],
      post_logout_redirect_uris: ['https://other.example/signed-out'],
      grant_types: ['authorization_code'],
      scope: 'openid',
    });
    otherClientId = other.client_id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  describe('/authorize', () => {
    /** Requests that would be answered with a redirect (a code, or an error) were the redirect URI registered. */
    const redirectedOtherwise: Record<string, Record<string, string | undefined>> = {
      'a valid request': {},
      'response_type=token': { response_type: 'token' },
      'an unknown scope': { scope: 'openid admin' },
      'no PKCE from a public client': { code_challenge: undefined, code_challenge_method: undefined },
      'a request object': { request: 'eyJhbGciOiJub25lIn0.e30.' },
      'prompt=none without a session': { prompt: 'none' },
    };

    it('answers the 400 page, never a redirect, for every near miss of the registered redirect URI, whatever else is wrong', async () => {
      for (const uri of nearMisses(REDIRECT_URI)) {
        for (const [what, overrides] of Object.entries(redirectedOtherwise)) {
          const response = await authorize(browser(), realm, codeRequest(clientId, { ...overrides, redirect_uri: uri }));
          expectRefusedPage(response, `${JSON.stringify(uri)} with ${what}`);
        }
      }
    });

    it('answers the 400 page by POST too', async () => {
      for (const uri of nearMisses(REDIRECT_URI)) {
        const params = codeRequest(clientId, { redirect_uri: uri, response_type: 'token' }) as Record<string, string>;
        const response = await browser().post(`${realmPath(realm)}/authorize`, Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)));
        expectRefusedPage(response, uri);
      }
    });

    it("refuses another client's registered redirect URI, an unknown client's, and a registered URI repeated beside another", async () => {
      expectRefusedPage(await authorize(browser(), realm, codeRequest(clientId, { redirect_uri: 'https://other.example/callback' })), 'another client');
      expectRefusedPage(await authorize(browser(), realm, codeRequest('nobody', { redirect_uri: 'https://evil.example/' })), 'unknown client');
      expectRefusedPage(await authorize(browser(), realm, codeRequest('', { redirect_uri: 'https://evil.example/' })), 'no client');
      expectRefusedPage(
        await authorize(browser(), realm, codeRequest(clientId, { redirect_uri: [REDIRECT_URI, 'https://evil.example/'], response_type: 'token' })),
        'repeated',
      );
    });

    it('refuses a request_uri that this client did not push, whatever redirect_uri the query names', async () => {
      for (const requestUri of ['urn:ietf:params:oauth:request_uri:unknown', 'https://evil.example/request']) {
        const response = await authorize(browser(), realm, { client_id: clientId, request_uri: requestUri, redirect_uri: 'https://evil.example/', response_type: 'token' });
        expectRefusedPage(response, requestUri);
      }
    });

    it('redirects its errors to the registered redirect URI only', async () => {
      const response = await authorize(browser(), realm, codeRequest(clientId, { response_type: 'token' }));
      expect(response.statusCode).toBe(303);
      const target = new URL(location(response));
      expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
      expect(target.searchParams.get('error')).toBe('unsupported_response_type');
    });
  });

  describe('sign-out (RP-initiated logout)', () => {
    const endSession = (b: TestBrowser, params: Record<string, string | undefined>) => b.get(`${realmPath(realm)}/connect/endSession?${query(params)}`);

    it('redirects at once, with nobody signed in, only to a post_logout_redirect_uri registered exactly for the client', async () => {
      const registered = await endSession(browser(), { client_id: clientId, post_logout_redirect_uri: LOGGED_OUT, state: 'bye' });
      expect(registered.statusCode).toBe(303);
      expect(location(registered)).toBe(`${LOGGED_OUT}?state=bye`);
      for (const uri of nearMisses(LOGGED_OUT)) {
        expectRefusedPage(await endSession(browser(), { client_id: clientId, post_logout_redirect_uri: uri, state: 'bye' }), uri);
      }
    });

    it("refuses the client's redirect URI, another client's post-logout URI, and a URI without a client", async () => {
      expectRefusedPage(await endSession(browser(), { client_id: clientId, post_logout_redirect_uri: REDIRECT_URI }), 'redirect URI');
      expectRefusedPage(
        await endSession(browser(), { client_id: clientId, post_logout_redirect_uri: 'https://other.example/signed-out' }),
        "another client's",
      );
      expectRefusedPage(await endSession(browser(), { client_id: otherClientId, post_logout_redirect_uri: LOGGED_OUT }), 'the other client');
      expectRefusedPage(await endSession(browser(), { post_logout_redirect_uri: LOGGED_OUT }), 'no client');
      expectRefusedPage(await endSession(browser(), { client_id: 'nobody', post_logout_redirect_uri: 'https://evil.example/' }), 'unknown client');
    });

    it('refuses an unregistered URI by POST, and on the confirmation form of a signed-in person', async () => {
      const b = browser();
      const start = await b.get(`${realmPath(realm)}/account`);
      const loginUrl = location(start);
      await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
      const posted = await b.post(`${realmPath(realm)}/connect/endSession`, { client_id: clientId, post_logout_redirect_uri: 'https://evil.example/' });
      expectRefusedPage(posted, 'POST');
      const confirmed = await b.post(`${realmPath(realm)}/connect/endSession`, {
        client_id: clientId,
        post_logout_redirect_uri: 'https://evil.example/',
        decision: 'allow',
        csrf: 'x',
      });
      expectRefusedPage(confirmed, 'confirmed');
      expect((await b.get(`${realmPath(realm)}/account`)).statusCode, 'still signed in').toBe(200);
    });
  });

  describe('the sign-in the account and CIBA pages begin', () => {
    const OFF_SITE = 'https://evil.example/phish';
    const steering = { return: OFF_SITE, return_to: OFF_SITE, returnTo: OFF_SITE, next: OFF_SITE, redirect: OFF_SITE, redirect_uri: OFF_SITE, continue: OFF_SITE, url: OFF_SITE, target: OFF_SITE };

    for (const page of ['account', 'bc-approve']) {
      it(`returns to ${page} after sign-in, whatever the query of the page, the sign-in page or the form names`, async () => {
        const b = browser();
        const start = await b.get(`${realmPath(realm)}/${page}?${query(steering)}`);
        expect(start.statusCode).toBe(303);
        const loginUrl = new URL(location(start));
        expect(loginUrl.origin + loginUrl.pathname).toBe(`${t.baseUrl}${realmPath(realm)}/login`);
        expect([...loginUrl.searchParams.keys()]).toEqual(['transaction']);
        const steeredLogin = `${loginUrl.href}&${query(steering)}`;
        const signedIn = await b.submit(steeredLogin, await b.get(steeredLogin), { username: user.username, password: user.password, ...steering });
        expect(signedIn.statusCode).toBe(303);
        expect(location(signedIn)).toBe(`${t.baseUrl}${realmPath(realm)}/${page}`);
      });
    }

    it('shows a notice only with the MAC of the server, so that a link cannot put a message (or a link) on the account page', async () => {
      const b = browser();
      const start = await b.get(`${realmPath(realm)}/account`);
      const loginUrl = location(start);
      await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
      const notice = 'Your account is locked: call +1 555 0100 or visit https://evil.example/unlock';
      const page = await b.get(`${realmPath(realm)}/account?${query({ notice, mac: 'AAAA' })}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('evil.example');
    });

    it('answers the CIBA approval page with its own notices only', async () => {
      const b = browser();
      const start = await b.get(`${realmPath(realm)}/bc-approve`);
      const loginUrl = location(start);
      await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
      const page = await b.get(`${realmPath(realm)}/bc-approve?${query({ answered: 'https://evil.example/' })}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('evil.example');
    });
  });

  describe('a redirect URI removed from the client', () => {
    async function clientWithTwoRedirects() {
      const created = await t.admin.createClient(realm, {
        redirect_uris: [REDIRECT_URI, 'https://old.example/callback'],
        grant_types: ['authorization_code'],
        scope: 'openid',
      });
      return { id: created.client_id, secret: created.client_secret! };
    }
    const dropOld = (clientId: string) => t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { redirect_uris: [REDIRECT_URI] });

    it('is no longer used by a request pushed before its removal', async () => {
      const client = await clientWithTwoRedirects();
      const pushed = await postForm(t.app, `${realmPath(realm)}/par`, { response_type: 'code', redirect_uri: 'https://old.example/callback', scope: 'openid', prompt: 'none' }, {
        authorization: basic(client.id, client.secret),
      });
      expect(pushed.statusCode, pushed.body).toBe(201);
      expect((await dropOld(client.id)).statusCode).toBe(200);
      const response = await authorize(browser(), realm, { client_id: client.id, request_uri: (pushed.json() as { request_uri: string }).request_uri });
      expectRefusedPage(response, 'pushed before the removal');
    });

    // AuthorizationFlow.resume checks the transaction's redirect URI against the client's current ones.
    it('is no longer used by a sign-in that began before its removal', async () => {
      const client = await clientWithTwoRedirects();
      const b = browser();
      const start = await authorize(b, realm, codeRequest(client.id, { redirect_uri: 'https://old.example/callback', scope: 'openid' }));
      const loginUrl = location(start);
      const toConsent = await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
      expect((await dropOld(client.id)).statusCode).toBe(200);
      const consentUrl = location(toConsent);
      const answered = await b.submit(consentUrl, await b.get(consentUrl), { decision: 'allow' });
      expect(answered.headers.location ?? '').not.toMatch(/^https:\/\/old\.example\//);
    });
  });

  it('lets no pushed request carry an unregistered redirect URI (PAR answers JSON, and nothing is pushed)', async () => {
    const confidential = await t.admin.createClient(realm, { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid' });
    for (const uri of nearMisses(REDIRECT_URI)) {
      const response = await postForm(t.app, `${realmPath(realm)}/par`, { response_type: 'code', redirect_uri: uri, scope: 'openid' }, {
        authorization: basic(confidential.client_id, confidential.client_secret!),
      });
      expect(response.statusCode, uri).toBe(400);
      expect(response.json(), uri).toMatchObject({ error: 'invalid_request' });
    }
  });
});
