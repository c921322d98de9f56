import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
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
  redirectPath,
} from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';

const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

describe('pushed authorization requests (RFC 9126)', () => {
  let t: TestApp & { clock: TestClock };
  /** A realm with par_lifetime 75, a person, a public and a confidential client. */
  let realm: string;
  let person: { username: string; password: string };
  let publicId: string;
  let confidential: { clientId: string; secret: string };

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  const push = (r: string, client: { clientId: string; secret: string }, form: Record<string, string | string[]>) =>
    postForm(t.app, `${realmPath(r)}/par`, form, { authorization: basic(client.clientId, client.secret) });

  /** A valid request of a confidential client, without client_id (it is in the Authorization header). */
  const pushedRequest = (overrides: Record<string, string> = {}): Record<string, string> => ({
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    state: 'pushed-state',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });

  const pushOk = async (r: string, client: { clientId: string; secret: string }, overrides: Record<string, string> = {}) => {
    const response = await push(r, client, pushedRequest(overrides));
    expect(response.statusCode, response.body).toBe(201);
    return response.json().request_uri as string;
  };

  const usePushed = (b: TestBrowser, r: string, clientId: string, requestUri: string) =>
    authorize(b, r, { client_id: clientId, request_uri: requestUri });

  beforeAll(async () => {
    t = await startTestApp({ clock: true });
    realm = await freshRealm(t, { par_lifetime: 75 });
    const setup = await codeFlowSetup(t.admin, realm);
    publicId = setup.clientId;
    person = { username: setup.username, password: setup.password };
    confidential = await confidentialClient(t, realm);
  });
  afterAll(() => t.close());

  describe('the endpoint', () => {
    it('answers 201 with a request_uri and expires_in = par_lifetime', async () => {
      const response = await push(realm, confidential, pushedRequest());
      expect(response.statusCode, response.body).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json();
      expect(body).toEqual({ request_uri: expect.any(String), expires_in: 75 });
      expect(body.request_uri.startsWith(REQUEST_URI_PREFIX)).toBe(true);
      expect(body.request_uri.length).toBeGreaterThan(REQUEST_URI_PREFIX.length + 20);
      // Stored as a hash only.
      const rows = await t.store.db.query('select * from pushed_requests where realm = $1', [realm]);
      expect(JSON.stringify(rows.rows)).not.toContain(body.request_uri.slice(REQUEST_URI_PREFIX.length));
    });

    it('refuses a push without client authentication with 401 invalid_client', async () => {
      const bare = await postForm(t.app, `${realmPath(realm)}/par`, pushedRequest());
      expect(bare.statusCode).toBe(401);
      expect(bare.headers['content-type']).toMatch(/^application\/json/);
      expect(bare.json().error).toBe('invalid_client');

      // A confidential client naming itself without its secret.
      const idOnly = await postForm(t.app, `${realmPath(realm)}/par`, { ...pushedRequest(), client_id: confidential.clientId });
      expect(idOnly.statusCode).toBe(401);
      expect(idOnly.json().error).toBe('invalid_client');

      const wrongSecret = await push(realm, { clientId: confidential.clientId, secret: 'wrong' }, pushedRequest());
      expect(wrongSecret.statusCode).toBe(401);
      expect(wrongSecret.headers['www-authenticate']).toBe(`Basic realm="${realm}"`);
      expect(wrongSecret.json().error).toBe('invalid_client');
    });

    it('answers a redirect_uri that is not registered with 400 invalid_request JSON', async () => {
      for (const redirectUri of ['https://evil.example/callback', `${REDIRECT_URI}/more`, `${REDIRECT_URI}/`]) {
        const response = await push(realm, confidential, pushedRequest({ redirect_uri: redirectUri }));
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      }
    });

    it('answers response_type=token with 400 unsupported_response_type JSON', async () => {
      const response = await push(realm, confidential, pushedRequest({ response_type: 'token' }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'unsupported_response_type', error_description: expect.any(String) });
    });

    it('answers other request errors as JSON: scope, PKCE method, repeated parameter', async () => {
      const scope = await push(realm, confidential, pushedRequest({ scope: 'openid admin' }));
      expect(scope.statusCode).toBe(400);
      expect(scope.json().error).toBe('invalid_scope');
      const plain = await push(realm, confidential, pushedRequest({ code_challenge_method: 'plain' }));
      expect(plain.statusCode).toBe(400);
      expect(plain.json().error).toBe('invalid_request');
      const repeated = await push(realm, confidential, { ...pushedRequest(), scope: ['openid', 'profile'] });
      expect(repeated.statusCode).toBe(400);
      expect(repeated.json().error).toBe('invalid_request');
    });

    it('refuses a request_uri inside the pushed request with invalid_request', async () => {
      const requestUri = await pushOk(realm, confidential);
      const response = await push(realm, confidential, pushedRequest({ request_uri: requestUri }));
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    });

    it('lets a public client push with its client_id only', async () => {
      const response = await postForm(t.app, `${realmPath(realm)}/par`, { ...pushedRequest(), client_id: publicId });
      expect(response.statusCode, response.body).toBe(201);
      const requestUri = response.json().request_uri as string;
      const b = browser();
      const { final } = await completeFlow(b, await usePushed(b, realm, publicId, requestUri), person);
      expectCode(final, { iss: issuerOf(realm), state: 'pushed-state' });
    });
  });

  describe('/authorize with request_uri', () => {
    it('goes through sign-in and consent to a code with the pushed state', async () => {
      const requestUri = await pushOk(realm, confidential, { state: 'a b&c=d/é' });
      const b = browser();
      const { final, pages } = await completeFlow(b, await usePushed(b, realm, confidential.clientId, requestUri), person);
      expect(pages[0]).toBe('login');
      expectCode(final, { iss: issuerOf(realm), state: 'a b&c=d/é' });
    });

    it('uses the pushed parameters, not those of the query', async () => {
      const requestUri = await pushOk(realm, confidential, { state: 'pushed' });
      const b = browser();
      const start = await authorize(b, realm, {
        client_id: confidential.clientId,
        request_uri: requestUri,
        state: 'from-query',
        redirect_uri: 'https://evil.example/callback',
      });
      const { final } = await completeFlow(b, start, person);
      expectCode(final, { iss: issuerOf(realm), state: 'pushed' });
    });

    it('refuses a second use of the same request_uri with the 400 page', async () => {
      const requestUri = await pushOk(realm, confidential);
      const first = await usePushed(browser(), realm, confidential.clientId, requestUri);
      expect(first.statusCode).toBe(303);
      expect(redirectPath(first)).toBe(`${realmPath(realm)}/login`);
      expectErrorPage(await usePushed(browser(), realm, confidential.clientId, requestUri));
    });

    it('refuses a request_uri used by another client with the 400 page, without spending it', async () => {
      const requestUri = await pushOk(realm, confidential);
      const other = await confidentialClient(t, realm);
      expectErrorPage(await usePushed(browser(), realm, other.clientId, requestUri));
      expectErrorPage(await usePushed(browser(), realm, publicId, requestUri));
      // Still there for the client that pushed it.
      const own = await usePushed(browser(), realm, confidential.clientId, requestUri);
      expect(own.statusCode).toBe(303);
      expect(redirectPath(own)).toBe(`${realmPath(realm)}/login`);
    });

    it('refuses a request_uri without client_id, and an unknown one, with the 400 page', async () => {
      const requestUri = await pushOk(realm, confidential);
      expectErrorPage(await authorize(browser(), realm, { request_uri: requestUri }));
      expectErrorPage(await usePushed(browser(), realm, confidential.clientId, `${REQUEST_URI_PREFIX}unknown`));
      expectErrorPage(await usePushed(browser(), realm, confidential.clientId, 'https://app.example/request.jwt'));
    });

    it('refuses a request_uri of another realm with the 400 page', async () => {
      const requestUri = await pushOk(realm, confidential);
      const otherRealm = await freshRealm(t);
      await t.admin.createClient(otherRealm, {
        client_id: confidential.clientId,
        client_type: 'public',
        redirect_uris: [REDIRECT_URI],
        scope: 'openid',
      });
      expectErrorPage(await usePushed(browser(), otherRealm, confidential.clientId, requestUri));
    });

    it('refuses an expired request_uri with the 400 page', async () => {
      const shortLived = await freshRealm(t, { par_lifetime: 1 });
      const client = await confidentialClient(t, shortLived);
      const response = await push(shortLived, client, pushedRequest());
      expect(response.json().expires_in).toBe(1);
      await t.clock.advance(1200);
      expectErrorPage(await usePushed(browser(), shortLived, client.clientId, response.json().request_uri));
    });
  });

  describe('required PAR', () => {
    it('redirects a request that was not pushed with invalid_request when the realm sets require_par', async () => {
      const parRealm = await freshRealm(t, { require_par: true });
      const setup = await codeFlowSetup(t.admin, parRealm);
      const client = await confidentialClient(t, parRealm);

      const direct = await authorize(browser(), parRealm, codeRequest(client.clientId));
      expectRedirectError(direct, { error: 'invalid_request', iss: issuerOf(parRealm) });

      const requestUri = await pushOk(parRealm, client);
      const b = browser();
      const { final } = await completeFlow(b, await usePushed(b, parRealm, client.clientId, requestUri), {
        username: setup.username,
        password: setup.password,
      });
      expectCode(final, { iss: issuerOf(parRealm), state: 'pushed-state' });
    });

    it('redirects a request that was not pushed with invalid_request when the client sets require_par', async () => {
      const client = await confidentialClient(t, realm, { require_par: true });
      const direct = await authorize(browser(), realm, codeRequest(client.clientId));
      expectRedirectError(direct, { error: 'invalid_request', iss: issuerOf(realm) });

      const requestUri = await pushOk(realm, client);
      const b = browser();
      const { final } = await completeFlow(b, await usePushed(b, realm, client.clientId, requestUri), person);
      expectCode(final, { iss: issuerOf(realm), state: 'pushed-state' });

      // Other clients of the realm are not affected.
      const other = await authorize(browser(), realm, codeRequest(confidential.clientId));
      expect(redirectPath(other)).toBe(`${realmPath(realm)}/login`);
    });
  });
});
