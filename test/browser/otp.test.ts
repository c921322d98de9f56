import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { browserSkipReason, launchChromium, signIn, sleep, startsWith, watchedContext, startCallbackServer } from './support.js';

/**
 * One-time codes in a real Chromium, JavaScript on (so that CSP violations are reported): the
 * code flow through the password and the otp step, and an authenticator app set up on the
 * account page and then asked for at sign-in.
 */
const skipReason = browserSkipReason('test/browser/otp.test.ts');

const PASSWORD = 'correct horse battery';
const PERIOD_MS = 30_000;

const codeAt = (base32: string, stepsFromNow: number) =>
  new TOTP({ secret: Secret.fromBase32(base32) }).generate({ timestamp: Date.now() + stepsFromNow * PERIOD_MS });

/** Waits, when the current time step ends within 3 s, for the next one. */
async function awayFromStepEnd(): Promise<void> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < 3_000) await sleep(left + 100);
}



/** Submits the form of the page the browser is on with the button named `button`, and waits for what it leads to. */
async function submitAndWait(page: Page, button: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

describe.skipIf(skipReason !== undefined)(`one-time codes in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => (callback ? callback.server.close(resolve) : resolve(undefined)));
  });

  const issuerOf = (realm: string) => `${t.baseUrl}/oauth2/${realm}`;

  async function person(realm: string, username: string): Promise<void> {
    const created = await t.admin.request('POST', `/realms/${realm}/users`, { username, password: PASSWORD });
    expect(created.statusCode, created.body).toBe(201);
  }

  it('signs in with the password then a code, and the code flow ends in an ID token with amr pwd, otp, mfa', async () => {
    await t.admin.createRealm('mfa', { authentication: ['password', 'otp'] });
    await person('mfa', 'alice');
    const enrolled = await t.admin.request('POST', '/realms/mfa/users/alice/totp');
    const secret = (enrolled.json() as { secret: string }).secret;
    const client = await t.admin.createClient('mfa', {
      client_type: 'public',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    const issuer = issuerOf('mfa');

    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile',
        state: 'otp-state',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${issuer}/authorize?${query}`);
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill(PASSWORD);
      await submitAndWait(page, 'Sign in');

      // The otp step: its own page, a numeric one-time-code field.
      expect(page.url()).toMatch(startsWith(`${issuer}/login?`));
      await expect(page.title()).resolves.toMatch(/^One-time code/);
      const field = page.getByLabel('Code from your authenticator app');
      await expect(field.getAttribute('autocomplete')).resolves.toBe('one-time-code');
      await expect(field.getAttribute('inputmode')).resolves.toBe('numeric');

      await awayFromStepEnd();
      await field.fill(codeAt(secret, 0));
      await Promise.all([page.waitForURL(startsWith(`${issuer}/consent?`)), page.getByRole('button', { name: 'Verify' }).click()]);
      await Promise.all([
        page.waitForURL((url) => `${url.origin}${url.pathname}` === callback.redirectUri),
        page.getByRole('button', { name: 'Allow' }).click(),
      ]);
      const code = new URL(page.url()).searchParams.get('code')!;
      expect(code).toEqual(expect.any(String));

      const response = await fetch(`${issuer}/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: client.client_id, code_verifier: verifier }),
      });
      const tokens = (await response.json()) as { id_token: string };
      expect(response.status, JSON.stringify(tokens)).toBe(200);
      const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer}/connect/jwk_uri`)), { issuer, audience: client.client_id });
      expect(payload.amr).toEqual(['pwd', 'otp', 'mfa']);
      expect(payload.acr).toBe('0');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('sets up an authenticator app on the account page; a later sign-in asks for its code', async () => {
    await t.admin.createRealm('acct');
    await person('acct', 'bob');
    const account = `${issuerOf('acct')}/account`;

    const first = await watchedContext(browser, { javaScriptEnabled: true });
    let secret: string;
    try {
      const { page, problems } = first;
      await page.goto(account);
      await signIn(page, 'bob', PASSWORD, startsWith(account));
      await expect(page.locator('section.account', { hasText: 'One-time code' }).innerText()).resolves.toContain('No authenticator app is set up.');
      await submitAndWait(page, 'Set up an authenticator app');

      await expect(page.title()).resolves.toMatch(/^Set up an authenticator app/);
      await expect(page.getByRole('img', { name: 'QR code of the secret' }).isVisible()).resolves.toBe(true);
      secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);

      await awayFromStepEnd();
      await page.getByLabel('Code from the app').fill(codeAt(secret, 0));
      await Promise.all([page.waitForURL(startsWith(`${account}?notice=`)), page.getByRole('button', { name: 'Confirm' }).click()]);
      await expect(page.getByRole('status').innerText()).resolves.toBe('Your authenticator app is set up.');
      await expect(page.locator('section.account', { hasText: 'One-time code' }).innerText()).resolves.toContain('An authenticator app gives you one-time codes');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await first.context.close();
    }

    const patched = await t.admin.request('PATCH', '/realms/acct', { settings: { authentication: ['password', 'otp'] } });
    expect(patched.statusCode, patched.body).toBe(200);

    const later = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { page, problems } = later;
      await page.goto(account);
      await page.getByLabel('Username').fill('bob');
      await page.getByLabel('Password').fill(PASSWORD);
      await submitAndWait(page, 'Sign in');
      await expect(page.title()).resolves.toMatch(/^One-time code/);
      await expect(page.locator('#totp-secret').count()).resolves.toBe(0);
      // The code of the set-up was accepted: the next time step's code is a new one.
      await page.getByLabel('Code from your authenticator app').fill(codeAt(secret, 1));
      await Promise.all([page.waitForURL(startsWith(account)), page.getByRole('button', { name: 'Verify' }).click()]);
      await expect(page.locator('main').innerText()).resolves.toContain('Signed in as bob');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await later.context.close();
    }
  }, 90_000);
});
