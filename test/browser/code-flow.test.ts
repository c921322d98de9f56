import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, launchChromium, startCallbackServer, watchedContext } from './support.js';

/**
 * The authorization code flow in a real Chromium: /authorize, the sign-in page, the consent
 * page, and the redirect back to a client that listens on another origin (so the pages'
 * CSP `form-action` is exercised). Chromium is found at /usr/bin/chromium (.ci/run installs
 * it); the pages do not depend on the store, so this runs in the pglite project only.
 */
const skipReason = browserSkipReason('test/browser/code-flow.test.ts');

const PASSWORD = 'correct horse battery';
/** `button.primary` of the page's inline stylesheet: it applies only if the CSP allowed the style. */
const PRIMARY_BUTTON_BACKGROUND = 'rgb(37, 87, 214)';
/** Runs in the page (tsconfig has no DOM types, hence globalThis). */
const backgroundColor = (element: unknown): string =>
  (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor;

describe.skipIf(skipReason !== undefined)(`the code flow in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    issuer = `${t.baseUrl}/oauth2`;
    await t.admin.putScope('root', 'orders:read', 'Read your orders');
    for (const username of ['alice', 'bob', 'carol']) {
      const created = await t.admin.request('POST', '/realms/root/users', { username, password: PASSWORD, claims: { name: `${username} example` } });
      expect(created.statusCode, created.body).toBe(201);
    }
    const client = await t.admin.createClient('root', {
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      client_name: 'Browser Test App',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid profile orders:read',
    });
    clientId = client.client_id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closeCallbackServer(callback);
  });

  function authorizationUrl(challenge: string, state: string): string {
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.redirectUri,
      scope: 'openid profile orders:read',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return `${issuer}/authorize?${query}`;
  }

  async function exchange(code: string, verifier: string) {
    const response = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String) });
    const { payload } = await jwtVerify(body.id_token as string, createRemoteJWKSet(new URL(`${issuer}/connect/jwk_uri`)), { issuer, audience: clientId });
    return payload;
  }

  /** The redirect back to the client, checked: a code, the original state, and the issuer (RFC 9207). */
  function checkRedirect(page: Page, state: string): string {
    const url = new URL(page.url());
    expect(`${url.origin}${url.pathname}`).toBe(callback.redirectUri);
    expect(url.searchParams.get('error')).toBeNull();
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.get('iss')).toBe(issuer);
    const code = url.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    return code!;
  }

  const atRedirectUri = (url: URL) => `${url.origin}${url.pathname}` === callback.redirectUri;

  it('signs in, consents, and comes back to the client with code, state and iss; the code buys an ID token', async () => {
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { verifier, challenge } = pkce();
      const state = randomBytes(12).toString('base64url');
      await page.goto(authorizationUrl(challenge, state));

      // The sign-in page, reached by a 303 from /authorize.
      expect(page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
      await expect(page.title()).resolves.toMatch(/^Sign in/);
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill(PASSWORD);
      await expect(page.locator('input[name=username]').inputValue()).resolves.toBe('alice');
      await expect(page.locator('input[name=password]').inputValue()).resolves.toBe(PASSWORD);
      await Promise.all([page.waitForURL(new RegExp(`^${issuer}/consent\\?`)), page.getByRole('button', { name: 'Sign in' }).click()]);

      // The consent page names the client once, and lists each scope by its description, its id after it.
      await expect(page.title()).resolves.toMatch(/^Allow access/);
      const text = await page.locator('main').innerText();
      expect(text).toContain('Browser Test App');
      expect(text.split('Browser Test App').length - 1).toBe(1);
      const scopes = await page.locator('ul.scopes li').allInnerTexts();
      expect(scopes).toEqual([
        expect.stringMatching(/^Sign you in with your account openid$/),
        expect.stringMatching(/^See your name and basic profile profile$/),
        expect.stringMatching(/^Read your orders orders:read$/),
      ]);
      await Promise.all([page.waitForURL(atRedirectUri), page.locator('button[name=decision][value=allow]').click()]);

      const code = checkRedirect(page, state);
      await expect(page.locator('body').innerText()).resolves.toBe('ok');
      expect(callback.hits.some((hit) => hit.startsWith('/callback?'))).toBe(true);

      const idToken = await exchange(code, verifier);
      expect(idToken).toMatchObject({ iss: issuer, aud: clientId, name: 'alice example', amr: expect.arrayContaining(['pwd']) });

      // Back with prompt=login: the sign-in form itself leads to the client (consent is remembered),
      // which the sign-in page's CSP form-action must allow as well.
      const again = pkce();
      await page.goto(`${authorizationUrl(again.challenge, 'again')}&prompt=login`);
      expect(page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Sign in' }).click()]);
      const secondIdToken = await exchange(checkRedirect(page, 'again'), again.verifier);
      expect(secondIdToken.sub).toBe(idToken.sub);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the pages load everything they need under their CSP, and work without JavaScript', async () => {
    // With JavaScript, so that the page reports CSP violations: a wrong password first (the error page), then the flow.
    const watched = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { page, problems } = watched;
      const state = 'with-js';
      await page.goto(authorizationUrl(pkce().challenge, state));
      await expect(page.locator('button.primary').evaluate(backgroundColor)).resolves.toBe(PRIMARY_BUTTON_BACKGROUND);
      await page.locator('input[name=username]').fill('bob');
      await page.locator('input[name=password]').fill('not the password');
      await Promise.all([page.waitForEvent('load'), page.locator('button[type=submit]').click()]);
      await expect(page.getByRole('alert').innerText()).resolves.toBe('The username or password is incorrect.');
      await expect(page.locator('input[name=username]').inputValue()).resolves.toBe('bob');

      await page.locator('input[name=password]').fill(PASSWORD);
      await Promise.all([page.waitForURL(new RegExp(`^${issuer}/consent\\?`)), page.locator('button[type=submit]').click()]);
      await expect(page.locator('button.primary').evaluate(backgroundColor)).resolves.toBe(PRIMARY_BUTTON_BACKGROUND);
      await Promise.all([page.waitForURL(atRedirectUri), page.locator('button[name=decision][value=allow]').click()]);
      checkRedirect(page, state);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await watched.context.close();
    }

    // Without JavaScript, a fresh browser and another person sign in and consent all the same.
    const noScript = await watchedContext(browser, { javaScriptEnabled: false });
    try {
      const { page, problems } = noScript;
      const { verifier, challenge } = pkce();
      const state = 'without-js';
      await page.goto(authorizationUrl(challenge, state));
      expect(page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
      await page.getByLabel('Username').fill('carol');
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([page.waitForURL(new RegExp(`^${issuer}/consent\\?`)), page.getByRole('button', { name: 'Sign in' }).click()]);
      await expect(page.locator('ul.scopes li').count()).resolves.toBe(3);
      await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Allow' }).click()]);
      const code = checkRedirect(page, state);
      expect(await exchange(code, verifier)).toMatchObject({ name: 'carol example' });
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await noScript.context.close();
    }
  }, 60_000);
});
