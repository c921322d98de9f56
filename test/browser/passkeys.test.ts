import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, freePort, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type Problems, browserSkipReason, launchChromium, watchedContext, startCallbackServer } from './support.js';

/**
 * Passkeys in a real Chromium, with the DevTools protocol's virtual authenticator (a CTAP2
 * platform authenticator that holds discoverable credentials and verifies the user): one
 * registered on the account page, then a passwordless sign-in with it from the sign-in page,
 * and a sign-in with the password and then the passkey. WebAuthn needs a secure context and
 * an RP ID that is a domain, so BASE_URL is http://localhost:<port>.
 */
const skipReason = browserSkipReason('test/browser/passkeys.test.ts');

const PASSWORD = 'correct horse battery';



describe.skipIf(skipReason !== undefined)(`passkeys in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let issuer: string;
  let clientId: string;
  /** One browser context and page for the whole story: the virtual authenticator lives in its page. */
  let context: BrowserContext;
  let page: Page;
  let problems: Problems;
  let cdp: CDPSession;
  let authenticatorId: string;
  const realm = 'keys';

  beforeAll(async () => {
    callback = await startCallbackServer();
    const port = await freePort();
    t = await startTestApp({ baseUrl: `http://localhost:${port}` });
    await t.app.listen({ port, host: '127.0.0.1' });
    issuer = `${t.baseUrl}/oauth2/${realm}`;
    await t.admin.createRealm(realm, { authentication: ['password'] });
    const created = await t.admin.request('POST', `/realms/${realm}/users`, { username: 'alice', password: PASSWORD, claims: { name: 'Alice' } });
    expect(created.statusCode, created.body).toBe(201);
    const client = await t.admin.createClient(realm, {
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      client_name: 'Passkey Test App',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    clientId = client.client_id;
    browser = await launchChromium();
    ({ context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true }));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    }));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => (callback ? callback.server.close(resolve) : resolve(undefined)));
  });

  const setAuthentication = async (authentication: string[]) => {
    const response = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { authentication } });
    expect(response.statusCode, response.body).toBe(200);
  };

  function authorizationUrl(challenge: string, state: string): string {
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.redirectUri,
      scope: 'openid profile',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return `${issuer}/authorize?${query}`;
  }

  const atRedirectUri = (url: URL) => `${url.origin}${url.pathname}` === callback.redirectUri;

  /** The code of the redirect the page is on, exchanged; the ID token's claims. */
  async function idTokenOf(currentPage: Page, state: string, verifier: string) {
    const url = new URL(currentPage.url());
    expect(url.searchParams.get('error')).toBeNull();
    expect(url.searchParams.get('state')).toBe(state);
    const code = url.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const response = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    const { payload } = await jwtVerify(body.id_token as string, createRemoteJWKSet(new URL(`${issuer}/connect/jwk_uri`)), { issuer, audience: clientId });
    return payload;
  }

  it('registers a passkey on the account page', async () => {
    await page.goto(`${issuer}/account`);
    expect(page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(`${issuer}/account`), page.getByRole('button', { name: 'Sign in' }).click()]);

    await expect(page.locator('section.account', { hasText: 'Passkeys' }).innerText()).resolves.toContain('You have no passkeys.');
    await page.getByLabel('Name of the passkey').fill('This laptop');
    await Promise.all([page.waitForURL(/\/account\?notice=/), page.getByRole('button', { name: 'Add a passkey' }).click()]);
    await expect(page.getByRole('status').innerText()).resolves.toBe('The passkey "This laptop" was added.');
    const listed = await page.locator('ul.passkeys li').allInnerTexts();
    expect(listed).toEqual([expect.stringMatching(/^This laptop: added \S.*\d{4}.*\d{1,2}:\d\d.*, never used/)]);

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);

  it('signs in without a password with that passkey, chosen on the sign-in page; amr hwk + mfa, acr 0 (the default journey)', async () => {
    await setAuthentication(['password', 'passkey']);
    await context.clearCookies();
    const { verifier, challenge } = pkce();
    await page.goto(authorizationUrl(challenge, 'passwordless'));
    expect(page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
    await Promise.all([page.waitForURL(new RegExp(`^${issuer}/consent\\?`)), page.getByRole('button', { name: 'Sign in with a passkey' }).click()]);
    await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Allow' }).click()]);
    const claims = await idTokenOf(page, 'passwordless', verifier);
    // The virtual authenticator's credential is device-bound (not backup eligible) and it verified the user.
    expect(claims).toMatchObject({ name: 'Alice', amr: ['hwk', 'mfa'], acr: '0' });
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);

  it('signs in with the password, then the passkey as the second step; amr pwd + hwk + mfa', async () => {
    await context.clearCookies();
    const { verifier, challenge } = pkce();
    await page.goto(authorizationUrl(challenge, 'second-factor'));
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(new RegExp(`^${issuer}/login\\?`)), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    await expect(page.title()).resolves.toMatch(/^Passkey/);
    // Consent is remembered from the first sign-in: the passkey leads back to the client.
    await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Use your passkey' }).click()]);
    const claims = await idTokenOf(page, 'second-factor', verifier);
    expect(claims).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: '0' });
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials[0]!.signCount).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);

  it('without JavaScript, the password still signs in to the passkey step, which says it cannot be passed', async () => {
    const noScript = await watchedContext(browser, { javaScriptEnabled: false });
    try {
      const { page: plain, problems: plainProblems } = noScript;
      await plain.goto(authorizationUrl(pkce().challenge, 'no-script'));
      await expect(plain.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).resolves.toBe(false);
      await expect(plain.locator('main').innerText()).resolves.toContain('Sign in with your password instead.');
      await plain.getByLabel('Username').fill('alice');
      await plain.getByLabel('Password').fill(PASSWORD);
      await Promise.all([plain.waitForURL(new RegExp(`^${issuer}/login\\?`)), plain.getByRole('button', { name: 'Sign in', exact: true }).click()]);
      await expect(plain.locator('main').innerText()).resolves.toContain(
        'This sign-in asks for a passkey, which needs JavaScript: it is turned off in this browser, so the sign-in cannot go on.',
      );
      expect(plainProblems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await noScript.context.close();
    }
  }, 60_000);
});
