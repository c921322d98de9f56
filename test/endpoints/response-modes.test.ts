import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { type JSONWebKeySet, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, completeFlow, consentFrom, expectErrorPage, freshRealm, signInFrom } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, pkce } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

/** A state that HTML and URLs must carry unchanged: quotes, angle brackets, an ampersand. */
const HOSTILE_STATE = `s"'><script>alert(1)</script>&x=1`;

/**
 * Response modes (CONTRACT.md §12): form_post (OAuth 2.0 Form Post Response Mode) and JARM
 * (`jwt`, `query.jwt`, `form_post.jwt`), for codes and errors, with `iss`.
 */
describe('response modes', () => {
  let t: TestApp;
  let realm: string;
  let issuer: string;
  let person: TestUser;
  let clientId: string;
  let esClientId: string;
  let keys: ReturnType<typeof createLocalJWKSet>;

  const browser = () => new TestBrowser(t.app, t.baseUrl);

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    realm = await freshRealm(t, NO_RATE_LIMITS);
    issuer = `${t.baseUrl}${realmPath(realm)}`;
    person = await createUser(t.admin, realm, 'response-modes-person');
    const client = { client_type: 'public', redirect_uris: [REDIRECT_URI], scope: 'openid profile', skip_consent: true };
    clientId = (await t.admin.createClient(realm, client)).client_id;
    esClientId = (await t.admin.createClient(realm, { ...client, authorization_signed_response_alg: 'ES256' })).client_id;
    const discovery = (await t.app.inject({ url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    const jwks = await t.app.inject({ url: new URL(discovery.jwks_uri).pathname });
    keys = createLocalJWKSet(jwks.json() as JSONWebKeySet);
  });
  afterAll(() => t?.close());

  /** Signs the person in from a request and returns the response that goes back to the client. */
  const signedIn = async (params: Record<string, string | undefined>) => {
    const b = browser();
    const { final } = await completeFlow(b, await authorize(b, realm, codeRequest(clientId, params)), person);
    return final;
  };

  /** The form_post page: 200 HTML, no redirect, one form POSTing exactly its fields to the redirect URI. */
  const expectFormPost = (response: LightMyRequestResponse): Record<string, string> => {
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    expect(response.headers.location).toBeUndefined();
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-store');
    const forms = [...response.body.matchAll(/<form method="post" action="([^"]*)">/g)];
    expect(forms.map((form) => form[1])).toEqual([REDIRECT_URI]);
    // Without script, the person presses the button.
    expect(response.body).toMatch(/<button type="submit"[^>]*>Continue<\/button>/);
    expect(response.body).toMatch(/<noscript>/);
    const scripts = [...response.body.matchAll(/<script>([^<]*)<\/script>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    const csp = String(response.headers['content-security-policy']);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toMatch(/form-action 'self' https:\/\/app\.example(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    return hiddenInputs(response.body);
  };

  /** The `response` JWT, verified against the realm's jwks_uri for this client. */
  const verifiedResponse = async (response: string, audience = clientId) => {
    const { payload, protectedHeader } = await jwtVerify(response, keys, { issuer, audience });
    expect(payload.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
    return { payload, alg: protectedHeader.alg };
  };

  it('lists the modes and the JARM algorithms in discovery', async () => {
    const body = (await t.app.inject({ url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    expect(body.response_modes_supported).toEqual(['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt']);
    expect(body.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
  });

  describe('form_post', () => {
    it('posts exactly code, state and iss to the redirect URI, escaped, and the code is redeemed', async () => {
      const verifier = pkce();
      const page = await signedIn({ response_mode: 'form_post', state: HOSTILE_STATE, code_challenge: verifier.challenge });
      expect(page.body).not.toContain('<script>alert');
      const fields = expectFormPost(page);
      expect(Object.keys(fields).sort()).toEqual(['code', 'iss', 'state']);
      expect(fields.state).toBe(HOSTILE_STATE);
      expect(fields.iss).toBe(issuer);
      const token = await postForm(t.app, `${realmPath(realm)}/access_token`, {
        grant_type: 'authorization_code',
        code: fields.code!,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier.verifier,
      });
      expect(token.statusCode, token.body).toBe(200);
    });

    it('posts an error after the sign-in (prompt=none without a session): error, error_description, state, iss', async () => {
      const fields = expectFormPost(await authorize(browser(), realm, codeRequest(clientId, { response_mode: 'form_post', prompt: 'none' })));
      expect(Object.keys(fields).sort()).toEqual(['error', 'error_description', 'iss', 'state']);
      expect(fields).toMatchObject({ error: 'login_required', state: 'state-123', iss: issuer });
    });

    it('posts an error about the request itself once the redirect URI is trusted', async () => {
      const fields = expectFormPost(await authorize(browser(), realm, codeRequest(clientId, { response_mode: 'form_post', code_challenge: undefined })));
      expect(fields).toMatchObject({ error: 'invalid_request', state: 'state-123', iss: issuer });
    });

    it('never posts to a redirect URI that is not registered: the error page instead', async () => {
      const response = await authorize(browser(), realm, codeRequest(clientId, { response_mode: 'form_post', redirect_uri: 'https://evil.example/callback' }));
      expectErrorPage(response);
      expect(response.body).not.toContain('evil.example/callback"');
      expect(response.body).not.toMatch(/<form method="post" action="https:/);
    });

    it('is the language the request asks for', async () => {
      const page = await authorize(browser(), realm, codeRequest(clientId, { response_mode: 'form_post', prompt: 'none', ui_locales: 'de' }));
      expect(page.body).toContain('<html lang="de">');
      expect(page.body).toMatch(/>Weiter<\/button>/);
    });

    it('follows a pushed request (PAR) that asked for it', async () => {
      const pushed = await postForm(t.app, `${realmPath(realm)}/par`, codeRequest(clientId, { response_mode: 'form_post', prompt: 'none' }) as Record<string, string>);
      expect(pushed.statusCode, pushed.body).toBe(201);
      const page = await authorize(browser(), realm, { client_id: clientId, request_uri: pushed.json().request_uri });
      expect(expectFormPost(page)).toMatchObject({ error: 'login_required', iss: issuer });
    });
  });

  describe('JARM', () => {
    it('response_mode=jwt answers a code in the query: one `response` JWT (RS256 by default) with iss, aud, exp, code and state', async () => {
      const final = await signedIn({ response_mode: 'jwt', state: HOSTILE_STATE });
      expect(final.statusCode).toBe(303);
      const target = new URL(location(final));
      expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
      expect([...target.searchParams.keys()]).toEqual(['response']);
      const { payload, alg } = await verifiedResponse(target.searchParams.get('response')!);
      expect(alg).toBe('RS256');
      expect(payload).toMatchObject({ iss: issuer, aud: clientId, state: HOSTILE_STATE, code: expect.any(String) });
      expect(payload.error).toBeUndefined();
    });

    it('query.jwt signs with the client\'s authorization_signed_response_alg (ES256)', async () => {
      const b = browser();
      const { final } = await completeFlow(b, await authorize(b, realm, codeRequest(esClientId, { response_mode: 'query.jwt' })), person);
      const response = new URL(location(final)).searchParams.get('response')!;
      expect(decodeProtectedHeader(response).alg).toBe('ES256');
      const { payload } = await verifiedResponse(response, esClientId);
      expect(payload).toMatchObject({ code: expect.any(String), state: 'state-123' });
    });

    it('form_post.jwt posts the one `response` field', async () => {
      const fields = expectFormPost(await signedIn({ response_mode: 'form_post.jwt' }));
      expect(Object.keys(fields)).toEqual(['response']);
      const { payload } = await verifiedResponse(fields.response!);
      expect(payload).toMatchObject({ iss: issuer, aud: clientId, code: expect.any(String), state: 'state-123' });
    });

    it('form_post.jwt posts access_denied when the person refuses at the consent page', async () => {
      const b = browser();
      const consent = await signInFrom(b, await authorize(b, realm, codeRequest(clientId, { response_mode: 'form_post.jwt', prompt: 'consent' })), person);
      const fields = expectFormPost(await consentFrom(b, consent, 'deny'));
      const { payload } = await verifiedResponse(fields.response!);
      expect(payload).toMatchObject({ iss: issuer, aud: clientId, error: 'access_denied', state: 'state-123' });
      expect(payload.code).toBeUndefined();
    });

    it('signs errors too: after the request (login_required) and about it (invalid_request)', async () => {
      for (const [params, error] of [
        [{ prompt: 'none' }, 'login_required'],
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
      ] as const) {
        const response = await authorize(browser(), realm, codeRequest(clientId, { response_mode: 'jwt', ...params }));
        const target = new URL(location(response));
        expect([...target.searchParams.keys()]).toEqual(['response']);
        const { payload } = await verifiedResponse(target.searchParams.get('response')!);
        expect(payload).toMatchObject({ iss: issuer, aud: clientId, error, error_description: expect.any(String), state: 'state-123' });
        expect(payload.code).toBeUndefined();
      }
    });
  });

  it.each(['fragment', 'fragment.jwt', 'form_post.JWT', 'bogus'])('refuses response_mode=%s with invalid_request in the query', async (mode) => {
    const response = await authorize(browser(), realm, codeRequest(clientId, { response_mode: mode }));
    expect(response.statusCode).toBe(303);
    const params = new URL(location(response)).searchParams;
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toContain('response_mode');
    expect(params.get('iss')).toBe(issuer);
    expect(params.get('code')).toBeNull();
  });

  describe('authorization_signed_response_alg', () => {
    it('is set and shown by the admin API, refused when unknown, and carried by export', async () => {
      const created = await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], authorization_signed_response_alg: 'ES256' });
      expect(created.authorization_signed_response_alg).toBe('ES256');
      const bad = await t.admin.request('POST', `/realms/${realm}/clients`, { client_type: 'public', redirect_uris: [REDIRECT_URI], authorization_signed_response_alg: 'none' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('authorization_signed_response_alg');
      const exported = await t.admin.request('GET', `/realms/${realm}/export`);
      expect(exported.statusCode).toBe(200);
      const entry = (exported.json().clients as Array<Record<string, unknown>>).find((client) => client.client_id === created.client_id);
      expect(entry?.authorization_signed_response_alg).toBe('ES256');
    });
  });

  describe('openid-client', () => {
    let config: oidc.Configuration;

    beforeAll(async () => {
      config = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    });

    const request = async (mode: string) => {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state,
        nonce,
        response_mode: mode,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const b = browser();
      const { final } = await completeFlow(b, await b.get(url.href), person);
      return { final, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true } };
    };

    it('redeems a form_post response', async () => {
      const { final, checks } = await request('form_post');
      const posted = new Request(REDIRECT_URI, { method: 'POST', body: new URLSearchParams(hiddenInputs(final.body)) });
      const tokens = await oidc.authorizationCodeGrant(config, posted, checks);
      expect(tokens.claims()?.iss).toBe(issuer);
    });

    it('validates and redeems a JARM response (useJwtResponseMode)', async () => {
      const jarm = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests, oidc.useJwtResponseMode] });
      const { final, checks } = await request('jwt');
      const tokens = await oidc.authorizationCodeGrant(jarm, new URL(location(final)), checks);
      expect(tokens.claims()?.sub).toEqual(expect.any(String));
    });
  });
});

