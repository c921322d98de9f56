import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { type TestApp, startTestApp } from '../support/app.js';
import {
  authorize,
  codeRequest,
  completeFlow,
  confidentialClient,
  expectCode,
  expectErrorPage,
  expectRedirectError,
  freshRealm,
  issuerOf,
  query,
  redirectPath,
  signInFrom,
} from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, location, pkce } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';

const ALPHA_ISSUER = 'https://auth.test/oauth2/alpha';
const ROOT_ISSUER = 'https://auth.test/oauth2';
const SECOND_URI = 'https://app.example/other';

describe('/authorize', () => {
  let t: TestApp;
  /** Public client of alpha with one redirect URI (REDIRECT_URI). */
  let publicId: string;
  /** Public client of alpha with two redirect URIs. */
  let twoUrisId: string;
  let confidentialId: string;
  let password: string;

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  /** A person of alpha who has neither signed in nor allowed anything yet. */
  const newPerson = async () => {
    const username = `u-${randomBytes(4).toString('hex')}`;
    const created = await t.admin.request('POST', '/realms/alpha/users', { username, password });
    expect(created.statusCode).toBe(201);
    return { username, password };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    const setup = await codeFlowSetup(t.admin, 'alpha');
    publicId = setup.clientId;
    password = setup.password;
    twoUrisId = (await codeFlowSetup(t.admin, 'alpha', { client: { redirect_uris: [REDIRECT_URI, SECOND_URI] } })).clientId;
    confidentialId = (await confidentialClient(t, 'alpha')).clientId;
  });
  afterAll(() => t.close());

  describe('errors shown on a page: the client or its redirect URI cannot be trusted', () => {
    it('refuses an unknown client_id with a 400 HTML page, never a redirect', async () => {
      expectErrorPage(await authorize(browser(), 'alpha', codeRequest('no-such-client')));
    });

    it('refuses a missing client_id with the page', async () => {
      expectErrorPage(await authorize(browser(), 'alpha', codeRequest(publicId, { client_id: undefined })));
    });

    it('refuses a repeated client_id with the page', async () => {
      expectErrorPage(await authorize(browser(), 'alpha', codeRequest(publicId, { client_id: [publicId, publicId] })));
    });

    it('refuses a repeated redirect_uri with the page', async () => {
      expectErrorPage(await authorize(browser(), 'alpha', codeRequest(publicId, { redirect_uri: [REDIRECT_URI, REDIRECT_URI] })));
    });

    it.each([
      ['another host', 'https://evil.example/callback'],
      ['a longer path (prefix match)', 'https://app.example/callback/more'],
      ['a shorter path', 'https://app.example/call'],
      ['a trailing slash', 'https://app.example/callback/'],
      ['an added query', 'https://app.example/callback?next=x'],
      ['an upper-case host', 'https://APP.example/callback'],
      ['an upper-case path', 'https://app.example/Callback'],
      ['an explicit default port', 'https://app.example:443/callback'],
      ['another port', 'https://app.example:8443/callback'],
      ['http instead of https', 'http://app.example/callback'],
      ['a subdomain', 'https://evil.app.example/callback'],
    ])('refuses a redirect_uri that is not registered exactly: %s', async (_label, redirectUri) => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { redirect_uri: redirectUri }));
      expectErrorPage(response);
      expect(response.body).not.toContain('evil.example');
    });

    it('checks the redirect URI before anything else: a bad one with other errors is still the page', async () => {
      const response = await authorize(
        browser(),
        'alpha',
        codeRequest(publicId, { redirect_uri: 'https://evil.example/callback', response_type: 'token', scope: 'nope' }),
      );
      expectErrorPage(response);
    });

    it('needs redirect_uri when the client has two registered', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(twoUrisId, { redirect_uri: undefined }));
      expectErrorPage(response);
    });

    it('accepts either of two registered redirect URIs when named', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(twoUrisId, { redirect_uri: SECOND_URI }));
      expect(response.statusCode).toBe(303);
      expect(redirectPath(response)).toBe('/oauth2/alpha/login');
    });

    it('takes the only registered redirect URI when it is omitted, for the pages and for errors', async () => {
      const ok = await authorize(browser(), 'alpha', codeRequest(publicId, { redirect_uri: undefined }));
      expect(ok.statusCode).toBe(303);
      expect(redirectPath(ok)).toBe('/oauth2/alpha/login');

      const error = await authorize(browser(), 'alpha', codeRequest(publicId, { redirect_uri: undefined, response_type: 'token' }));
      expectRedirectError(error, { error: 'unsupported_response_type', iss: ALPHA_ISSUER });
    });

    it('does not know a client of alpha in the root realm', async () => {
      expectErrorPage(await authorize(browser(), 'root', codeRequest(publicId)));
    });
  });

  describe('errors redirected to the client with error, error_description, state and iss', () => {
    it('returns state unchanged, special characters included', async () => {
      const state = 'a b&c=d/é+%20?#';
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { response_type: undefined, state }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER, state });
    });

    it('leaves state out when the request had none', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { response_type: undefined, state: undefined }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER, state: null });
    });

    it('keeps the registered redirect URI query and adds to it', async () => {
      const withQuery = 'https://app.example/cb?tenant=7';
      const client = await codeFlowSetup(t.admin, 'alpha', { client: { redirect_uris: [withQuery] } });
      const response = await authorize(browser(), 'alpha', codeRequest(client.clientId, { redirect_uri: withQuery, response_type: 'token' }));
      const params = expectRedirectError(response, { error: 'unsupported_response_type', iss: ALPHA_ISSUER, redirectUri: 'https://app.example/cb' });
      expect(params.get('tenant')).toBe('7');
    });

    it('answers a missing response_type with invalid_request', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { response_type: undefined }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it.each(['token', 'id_token', 'code id_token', 'code token', 'id_token token', 'code id_token token', 'none'])(
      'refuses response_type=%s with unsupported_response_type',
      async (responseType) => {
        const response = await authorize(browser(), 'alpha', codeRequest(publicId, { response_type: responseType }));
        expectRedirectError(response, { error: 'unsupported_response_type', iss: ALPHA_ISSUER });
      },
    );

    it('refuses a scope outside the client scope with invalid_scope', async () => {
      await t.admin.putScope('alpha', 'admin');
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { scope: 'openid admin' }));
      expectRedirectError(response, { error: 'invalid_scope', iss: ALPHA_ISSUER });
      const unknown = await authorize(browser(), 'alpha', codeRequest(publicId, { scope: 'openid no-such-scope' }));
      expectRedirectError(unknown, { error: 'invalid_scope', iss: ALPHA_ISSUER });
    });

    it('refuses a public client without code_challenge', async () => {
      const response = await authorize(
        browser(),
        'alpha',
        codeRequest(publicId, { code_challenge: undefined, code_challenge_method: undefined }),
      );
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('refuses code_challenge_method=plain', async () => {
      const { verifier } = pkce();
      const response = await authorize(
        browser(),
        'alpha',
        codeRequest(publicId, { code_challenge: verifier, code_challenge_method: 'plain' }),
      );
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('refuses a code_challenge without a method (which means plain)', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { code_challenge_method: undefined }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('lets a confidential client go without PKCE by default', async () => {
      const response = await authorize(
        browser(),
        'alpha',
        codeRequest(confidentialId, { code_challenge: undefined, code_challenge_method: undefined }),
      );
      expect(response.statusCode).toBe(303);
      expect(redirectPath(response)).toBe('/oauth2/alpha/login');
    });

    it('requires PKCE of a confidential client when the realm sets require_pkce', async () => {
      const realm = await freshRealm(t, { require_pkce: true });
      const { clientId } = await confidentialClient(t, realm);
      const without = await authorize(browser(), realm, codeRequest(clientId, { code_challenge: undefined, code_challenge_method: undefined }));
      expectRedirectError(without, { error: 'invalid_request', iss: issuerOf(realm) });
      const withPkce = await authorize(browser(), realm, codeRequest(clientId));
      expect(redirectPath(withPkce)).toBe(`${realmPath(realm)}/login`);
    });

    it('requires PKCE of a confidential client whose record sets require_pkce', async () => {
      const { clientId } = await confidentialClient(t, 'alpha', { require_pkce: true });
      const without = await authorize(browser(), 'alpha', codeRequest(clientId, { code_challenge: undefined, code_challenge_method: undefined }));
      expectRedirectError(without, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('refuses a repeated parameter with invalid_request', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { scope: ['openid', 'profile'] }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
      const challenge = pkce().challenge;
      const twice = await authorize(browser(), 'alpha', codeRequest(publicId, { code_challenge: [challenge, challenge] }));
      expectRedirectError(twice, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('ignores unknown parameters', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { foo: 'bar', ui_locales: 'de' }));
      expect(redirectPath(response)).toBe('/oauth2/alpha/login');
    });

    it('refuses a client without the authorization_code grant with unauthorized_client', async () => {
      const { clientId } = await confidentialClient(t, 'alpha', { grant_types: ['client_credentials'] });
      const response = await authorize(browser(), 'alpha', codeRequest(clientId));
      expectRedirectError(response, { error: 'unauthorized_client', iss: ALPHA_ISSUER });
    });

    it('refuses an unsigned request object with invalid_request_object, at the registered redirect URI it names outside (test/requests/request-object.test.ts has the rest)', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { request: 'eyJhbGciOiJub25lIn0.e30.' }));
      expectRedirectError(response, { error: 'invalid_request_object', iss: ALPHA_ISSUER });
    });

    it('refuses response_mode=fragment with invalid_request', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { response_mode: 'fragment' }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('refuses an unknown prompt value and prompt=none with another value', async () => {
      const unknown = await authorize(browser(), 'alpha', codeRequest(publicId, { prompt: 'bogus' }));
      expectRedirectError(unknown, { error: 'invalid_request', iss: ALPHA_ISSUER });
      const combined = await authorize(browser(), 'alpha', codeRequest(publicId, { prompt: 'none login' }));
      expectRedirectError(combined, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('refuses a max_age that is not a whole number', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { max_age: '-1' }));
      expectRedirectError(response, { error: 'invalid_request', iss: ALPHA_ISSUER });
    });

    it('carries the root issuer as iss for the root realm', async () => {
      const root = await codeFlowSetup(t.admin, 'root');
      const response = await authorize(browser(), 'root', codeRequest(root.clientId, { response_type: 'token' }));
      expectRedirectError(response, { error: 'unsupported_response_type', iss: ROOT_ISSUER });
    });
  });

  describe('malformed input', () => {
    it('answers a NUL character anywhere in the flow with a 400 page, never a server error', async () => {
      const b = browser();
      for (const params of [
        codeRequest('a\u0000b'),
        codeRequest(publicId, { state: 'a\u0000b' }),
        codeRequest(publicId, { login_hint: 'a\u0000b' }),
        { client_id: publicId, request_uri: 'urn:ietf:params:oauth:request_uri:a\u0000b' },
      ]) {
        const response = await authorize(b, 'alpha', params);
        expect(response.statusCode, JSON.stringify(params)).toBeLessThan(500);
        expect(response.headers.location ?? '').not.toContain('code=');
      }
      // Once the redirect URI is trusted, the NUL is the client's error, sent back to it.
      for (const param of ['state', 'login_hint', 'nonce']) {
        const response = await authorize(b, 'alpha', codeRequest(publicId, { [param]: 'a\u0000b' }));
        expect(new URL(location(response)).searchParams.get('error'), param).toBe('invalid_request');
      }
      const start = await authorize(b, 'alpha', codeRequest(publicId));
      const url = location(start);
      const page = await b.get(url);
      const answer = await b.submit(url, page, { username: 'a\u0000b', password: 'x' });
      expect(answer.statusCode).toBeLessThan(500);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
    });

    it('answers a store outage with a 503 page and Retry-After, and a fault with a 500 page, with no detail', async () => {
      const flowStore = t.store.authorizationFlow;
      const begin = flowStore.begin;
      try {
        for (const [fault, status] of [
          [new StoreUnavailableError('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'), 503],
          [new Error('column "secret" hunter2'), 500],
        ] as const) {
          flowStore.begin = () => Promise.reject(fault);
          const response = await authorize(browser(), 'alpha', codeRequest(publicId));
          expectErrorPage(response, status);
          expect(response.headers['retry-after']).toBe(status === 503 ? '1' : undefined);
          expect(response.body).not.toContain('hunter2');
          expect(response.body).not.toContain('10.0.0.5');
        }
      } finally {
        flowStore.begin = begin;
      }
    });

    it('does not start a flow for a HEAD request', async () => {
      const count = async () =>
        (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM authorization_transactions')).rows[0]!.n;
      const before = await count();
      const response = await t.app.inject({ method: 'HEAD', url: `/oauth2/alpha/authorize?${query(codeRequest(publicId))}` });
      expect(response.statusCode).toBe(404);
      expect(response.headers.location).toBeUndefined();
      expect(await count()).toBe(before);
    });

    it('answers a JSON body at POST /authorize with an HTML page, not a redirect', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/oauth2/alpha/authorize',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(codeRequest(publicId)),
      });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers.location).toBeUndefined();
    });
  });

  describe('POST /authorize', () => {
    it('takes a form body like the query of GET', async () => {
      const b = browser();
      const person = await newPerson();
      const start = await b.post('/oauth2/alpha/authorize', codeRequest(publicId) as Record<string, string>);
      expect(start.statusCode).toBe(303);
      expect(redirectPath(start)).toBe('/oauth2/alpha/login');
      const { final, pages } = await completeFlow(b, start, person);
      expect(pages).toEqual(['login', 'consent']);
      expectCode(final, { iss: ALPHA_ISSUER });
    });

    it('redirects its errors with state and iss', async () => {
      const response = await postForm(t.app, '/oauth2/alpha/authorize', codeRequest(publicId, { response_type: 'token', state: 'a b&c=d/é' }) as Record<string, string>);
      expectRedirectError(response, { error: 'unsupported_response_type', iss: ALPHA_ISSUER, state: 'a b&c=d/é' });
    });

    it('shows the page for an unknown client', async () => {
      const response = await postForm(t.app, '/oauth2/alpha/authorize', codeRequest('nobody') as Record<string, string>);
      expectErrorPage(response);
    });
  });

  describe('prompt, max_age and login_hint', () => {
    /** A browser with a session of a new person, who allowed the public client `openid profile`. */
    const signedIn = async () => {
      const b = browser();
      const person = await newPerson();
      const { final, pages } = await completeFlow(b, await authorize(b, 'alpha', codeRequest(publicId)), person);
      expect(pages).toEqual(['login', 'consent']);
      expectCode(final, { iss: ALPHA_ISSUER });
      return { b, person };
    };

    it('answers prompt=none without a session with login_required', async () => {
      const response = await authorize(browser(), 'alpha', codeRequest(publicId, { prompt: 'none' }));
      expectRedirectError(response, { error: 'login_required', iss: ALPHA_ISSUER });
    });

    it('answers prompt=none with a session but no consent with consent_required', async () => {
      const b = browser();
      const person = await newPerson();
      // Signs in, and leaves the consent page without answering.
      const afterSignIn = await signInFrom(b, await authorize(b, 'alpha', codeRequest(publicId)), person);
      expect(redirectPath(afterSignIn)).toBe('/oauth2/alpha/consent');

      const response = await authorize(b, 'alpha', codeRequest(publicId, { prompt: 'none', state: 'silent' }));
      expectRedirectError(response, { error: 'consent_required', iss: ALPHA_ISSUER, state: 'silent' });
    });

    it('delivers the code at once for prompt=none with a session and consent', async () => {
      const { b } = await signedIn();
      const response = await authorize(b, 'alpha', codeRequest(publicId, { prompt: 'none', state: 'silent' }));
      expectCode(response, { iss: ALPHA_ISSUER, state: 'silent' });
    });

    it('shows the sign-in page again for prompt=login despite the session', async () => {
      const { b, person } = await signedIn();
      const response = await authorize(b, 'alpha', codeRequest(publicId, { prompt: 'login' }));
      expect(redirectPath(response)).toBe('/oauth2/alpha/login');
      const { final, pages } = await completeFlow(b, response, person);
      expect(pages).toEqual(['login']); // consent was given before
      expectCode(final, { iss: ALPHA_ISSUER });
    });

    it('serves prompt=select_account as a new sign-in', async () => {
      const { b } = await signedIn();
      const response = await authorize(b, 'alpha', codeRequest(publicId, { prompt: 'select_account' }));
      expect(redirectPath(response)).toBe('/oauth2/alpha/login');
    });

    it('asks for a new sign-in when the session is older than max_age, not when it is younger', async () => {
      const { b } = await signedIn();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const stale = await authorize(b, 'alpha', codeRequest(publicId, { max_age: '0' }));
      expect(stale.statusCode).toBe(303);
      expect(redirectPath(stale)).toBe('/oauth2/alpha/login');

      const fresh = await authorize(b, 'alpha', codeRequest(publicId, { max_age: '3600' }));
      expectCode(fresh, { iss: ALPHA_ISSUER });
    });

    it('answers prompt=none with a session older than max_age with login_required', async () => {
      const { b } = await signedIn();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await authorize(b, 'alpha', codeRequest(publicId, { prompt: 'none', max_age: '0' }));
      expectRedirectError(response, { error: 'login_required', iss: ALPHA_ISSUER });
    });

    it('pre-fills the username input with login_hint', async () => {
      const b = browser();
      const response = await authorize(b, 'alpha', codeRequest(publicId, { login_hint: 'bob@example.com' }));
      const page = await b.get(location(response));
      expect(page.statusCode).toBe(200);
      expect(page.body).toMatch(/<input[^>]*name="username"[^>]*value="bob@example\.com"/);
    });

    it('shows an empty username input without login_hint', async () => {
      const b = browser();
      const page = await b.get(location(await authorize(b, 'alpha', codeRequest(publicId))));
      expect(page.body).toMatch(/<input[^>]*name="username"[^>]*value=""/);
    });
  });

  describe('the request parameters reach the code', () => {
    it('delivers the code to the named redirect URI with state and iss', async () => {
      const b = browser();
      const person = await newPerson();
      const start = await authorize(b, 'alpha', codeRequest(twoUrisId, { redirect_uri: SECOND_URI, state: 'a b&c=d/é' }));
      const { final } = await completeFlow(b, start, person);
      expectCode(final, { iss: ALPHA_ISSUER, state: 'a b&c=d/é', redirectUri: SECOND_URI });
    });

    it('builds the redirect from the issuer and query only (never the Host header)', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/oauth2/alpha/authorize?${query(codeRequest(publicId))}`,
        headers: { host: 'evil.example' },
      });
      expect(location(response).startsWith(`${ALPHA_ISSUER}/login?`)).toBe(true);
    });
  });
});
