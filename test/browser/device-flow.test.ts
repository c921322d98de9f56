import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type TestUser, createUser } from '../support/users.js';
import { browserSkipReason, launchChromium, signIn, sleep, startsWith, watchedContext } from './support.js';

/**
 * The device authorization grant (RFC 8628) in a real Chromium, with JavaScript on so that the
 * pages report CSP violations: the test plays the device (it asks for a code and polls the
 * token endpoint), the browser plays the person at `verification_uri` (the code, sign-in,
 * consent that names the code again, and the closing page).
 */
const skipReason = browserSkipReason('test/browser/device-flow.test.ts');

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The realm's poll interval (seconds), and the wait that keeps each poll clear of slow_down. */
const POLL_INTERVAL = 1;
const POLL_GAP_MS = POLL_INTERVAL * 1000 + 150;

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

interface PollAnswer {
  status: number;
  body: Record<string, unknown>;
}

describe.skipIf(skipReason !== undefined)(`the device flow in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A realm of the test's own (sessions and consents do not mix), with a device client and a person. */
  async function setUp(): Promise<{ issuer: string; clientId: string; user: TestUser }> {
    const name = `dev-${randomBytes(4).toString('hex')}`;
    const realm = await t.admin.createRealm(name, { device_poll_interval: POLL_INTERVAL });
    expect(realm.issuer).toBe(`${t.baseUrl}/oauth2/${name}`);
    await t.admin.putScope(name, 'orders:read', 'Read your orders');
    const client = await t.admin.createClient(name, {
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      client_name: 'Living Room TV',
      grant_types: [DEVICE_CODE_GRANT],
      scope: 'openid profile orders:read',
    });
    const user = await createUser(t.admin, name, 'alice', { claims: { name: 'Alice Example' } });
    return { issuer: realm.issuer, clientId: client.client_id, user };
  }

  async function postForm(url: string, form: Record<string, string>): Promise<PollAnswer> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The device: asks for a code, then polls no faster than the interval it was given. */
  async function device(issuer: string, clientId: string, scope: string) {
    const answer = await postForm(`${issuer}/device/code`, { client_id: clientId, scope });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const authorization = answer.body as unknown as DeviceAuthorization;
    expect(authorization).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${issuer}/device/user`,
      verification_uri_complete: `${issuer}/device/user?user_code=${authorization.user_code}`,
      expires_in: expect.any(Number),
      interval: POLL_INTERVAL,
    });
    let lastPoll = 0;
    return {
      authorization,
      async poll(): Promise<PollAnswer> {
        const wait = lastPoll + POLL_GAP_MS - Date.now();
        if (wait > 0) await sleep(wait);
        lastPoll = Date.now();
        return postForm(`${issuer}/access_token`, { grant_type: DEVICE_CODE_GRANT, device_code: authorization.device_code, client_id: clientId });
      },
    };
  }

  function expectPollError(answer: PollAnswer, error: string): void {
    expect(answer).toEqual({ status: 400, body: { error, error_description: expect.any(String) } });
  }

  const title = (page: Page) => page.title().then((text) => text.replace(/ · .*$/, ''));

  /** On the consent page: the code is shown again (as the device shows it), with the client and the scopes. */
  async function checkConsentPage(page: Page, issuer: string, userCode: string, scopes: string[]): Promise<void> {
    expect(page.url()).toMatch(startsWith(`${issuer}/consent?`));
    await expect(title(page)).resolves.toBe('Allow access?');
    await expect(page.locator('strong.user-code').textContent()).resolves.toBe(userCode);
    await expect(page.locator('main').innerText()).resolves.toContain('Living Room TV');
    await expect(page.locator('ul.scopes li').allInnerTexts()).resolves.toEqual(scopes);
  }

  it('a code typed in lower case without its dash, sign-in and Allow give the device its tokens, once', async () => {
    const { issuer, clientId, user } = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const tv = await device(issuer, clientId, 'openid profile orders:read');
      const { user_code: userCode } = tv.authorization;
      expectPollError(await tv.poll(), 'authorization_pending');

      await page.goto(tv.authorization.verification_uri);
      await expect(title(page)).resolves.toBe('Connect a device');
      await expect(page.locator('input[name=user_code]').inputValue()).resolves.toBe('');

      // A code that was never given out: the page says so and keeps the person there.
      await page.locator('input[name=user_code]').fill(userCode === 'XXXX-XXXX' ? 'ZZZZ-ZZZZ' : 'XXXX-XXXX');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Continue' }).click()]);
      await expect(title(page)).resolves.toBe('Connect a device');
      await expect(page.getByRole('alert').innerText()).resolves.toMatch(/not valid or has expired/);

      // The real code, as a person might type it: lower case, no dash.
      const typed = userCode.replace('-', '').toLowerCase();
      await page.locator('input[name=user_code]').fill(typed);
      await Promise.all([page.waitForURL(startsWith(`${issuer}/login?`)), page.getByRole('button', { name: 'Continue' }).click()]);
      await expect(title(page)).resolves.toBe('Sign in');
      expectPollError(await tv.poll(), 'authorization_pending');

      await signIn(page, user.username, user.password, startsWith(`${issuer}/consent?`));
      await checkConsentPage(page, issuer, userCode, [
        'Sign you in with your account openid',
        'See your name and basic profile profile',
        'Read your orders orders:read',
      ]);
      expectPollError(await tv.poll(), 'authorization_pending');

      await Promise.all([page.waitForEvent('load'), page.locator('button[name=decision][value=allow]').click()]);
      await expect(title(page)).resolves.toBe('Device connected');
      await expect(page.locator('main').innerText()).resolves.toContain('You may now return to your device.');

      const tokens = await tv.poll();
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body).toMatchObject({
        token_type: 'Bearer',
        access_token: expect.any(String),
        id_token: expect.any(String),
        expires_in: expect.any(Number),
        scope: 'openid profile orders:read',
      });
      const { payload } = await jwtVerify(tokens.body.id_token as string, createRemoteJWKSet(new URL(`${issuer}/connect/jwk_uri`)), {
        issuer,
        audience: clientId,
      });
      expect(payload).toMatchObject({ sub: user.sub, name: 'Alice Example' });

      // The device code bought its tokens once.
      expectPollError(await tv.poll(), 'invalid_grant');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);

  it('Deny shows the denied page, and the device hears access_denied', async () => {
    const { issuer, clientId, user } = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const tv = await device(issuer, clientId, 'openid orders:read');
      expectPollError(await tv.poll(), 'authorization_pending');

      await page.goto(tv.authorization.verification_uri);
      await page.locator('input[name=user_code]').fill(tv.authorization.user_code);
      await Promise.all([page.waitForURL(startsWith(`${issuer}/login?`)), page.getByRole('button', { name: 'Continue' }).click()]);
      await signIn(page, user.username, user.password, startsWith(`${issuer}/consent?`));
      await checkConsentPage(page, issuer, tv.authorization.user_code, ['Sign you in with your account openid', 'Read your orders orders:read']);

      await Promise.all([page.waitForEvent('load'), page.locator('button[name=decision][value=deny]').click()]);
      await expect(title(page)).resolves.toBe('Access denied');
      await expect(page.locator('main').innerText()).resolves.toContain('The device was not given access.');

      expectPollError(await tv.poll(), 'access_denied');
      expectPollError(await tv.poll(), 'access_denied');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);

  it('verification_uri_complete fills the code in, and waits for the person to press Continue', async () => {
    const { issuer, clientId, user } = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const tv = await device(issuer, clientId, 'orders:read');
      await page.goto(tv.authorization.verification_uri_complete);

      // The code is shown for the person to confirm, never used unseen.
      expect(page.url()).toBe(tv.authorization.verification_uri_complete);
      await expect(title(page)).resolves.toBe('Connect a device');
      await expect(page.locator('input[name=user_code]').inputValue()).resolves.toBe(tv.authorization.user_code);
      expectPollError(await tv.poll(), 'authorization_pending');

      await Promise.all([page.waitForURL(startsWith(`${issuer}/login?`)), page.getByRole('button', { name: 'Continue' }).click()]);
      await signIn(page, user.username, user.password, startsWith(`${issuer}/consent?`));
      await checkConsentPage(page, issuer, tv.authorization.user_code, ['Read your orders orders:read']);
      await Promise.all([page.waitForEvent('load'), page.locator('button[name=decision][value=allow]').click()]);
      await expect(title(page)).resolves.toBe('Device connected');

      // Without openid, an access token and no ID token.
      const tokens = await tv.poll();
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), scope: 'orders:read' });
      expect(tokens.body.id_token).toBeUndefined();
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);
});
