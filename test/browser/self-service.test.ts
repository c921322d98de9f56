import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { GOOD_PASSWORD, linkIn } from '../support/self-service.js';
import { type CallbackServer, browserSkipReason, clickAndWait, closeCallbackServer, expectFits, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * People manage themselves (CONTRACT.md §9) in a real Chromium, at a phone's width and a
 * desktop's: from the sign-in page to the registration form, the page that waits for the email
 * address, the mail read from the SMTP server, its link, and back to finish the sign-in.
 */
const skipReason = browserSkipReason('test/browser/self-service.test.ts');

describe.skipIf(skipReason !== undefined)(`registration and email verification in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let mail: TestMailServer;
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    mail = await startMailServer();
    t = await startTestApp({ listen: true, mail: mail.settings });
    browser = await launchChromium();
    await t.admin.createRealm('people', { self_registration: true, email_verification: true, password_reset: true, allow_consent_bypass: true });
    clientId = (
      await t.admin.createClient('people', {
        client_type: 'public',
        redirect_uris: [callback.redirectUri],
        grant_types: ['authorization_code'],
        scope: 'openid profile email',
        skip_consent: true,
      })
    ).client_id;
    issuer = `${t.baseUrl}/oauth2/people`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mail?.close();
    await closeCallbackServer(callback);
  });

  it.each([
    { width: 390, height: 844, javaScript: true },
    { width: 1280, height: 800, javaScript: true },
    { width: 390, height: 844, javaScript: false },
  ])('registers, confirms the address from the mail and signs in at $width px (JavaScript $javaScript)', async ({ width, height, javaScript }) => {
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: javaScript });
    try {
      await page.setViewportSize({ width, height });
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile email',
        state: 'self-service',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${issuer}/authorize?${query}`);
      await expect(page.getByRole('link', { name: 'Forgot your password?' }).isVisible()).resolves.toBe(true);
      await expectFits(page);
      await Promise.all([page.waitForURL(startsWith(`${issuer}/register?`)), page.getByRole('link', { name: 'Create an account' }).click()]);

      await expect(page.title()).resolves.toBe('Create an account · people');
      await expectFits(page);
      const username = `ada-${randomBytes(3).toString('hex')}`;
      const email = `${username}@example.com`;
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Email address').fill(email);
      await page.getByLabel('Password').fill(GOOD_PASSWORD);
      await page.getByLabel('First name (optional)').fill('Ada');
      await clickAndWait(page, 'Create account', startsWith(`${issuer}/login?`));

      // The sign-in waits for the address.
      await expect(page.title()).resolves.toBe('Confirm your email address · people');
      await expect(page.getByRole('button', { name: 'Send the mail again' }).isVisible()).resolves.toBe(true);
      await expectFits(page);
      const signInUrl = page.url();

      // The mail, as the SMTP server received it; its link opened in another tab.
      const link = linkIn(await mail.nextMail(email), '/verify');
      const mailTab = await context.newPage();
      await mailTab.setViewportSize({ width, height });
      await mailTab.goto(link);
      await expect(mailTab.title()).resolves.toBe('Email address confirmed · people');
      await expect(mailTab.getByRole('status').innerText()).resolves.toContain('Your email address is confirmed.');
      await expectFits(mailTab);
      await mailTab.close();

      expect(page.url()).toBe(signInUrl);
      await clickAndWait(page, 'Continue', (url) => `${url.origin}${url.pathname}` === callback.redirectUri);
      const code = new URL(page.url()).searchParams.get('code')!;
      const response = await fetch(`${issuer}/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
      });
      const tokens = (await response.json()) as { id_token: string };
      expect(response.status, JSON.stringify(tokens)).toBe(200);
      const claims = decodeJwt(tokens.id_token);
      expect(claims).toMatchObject({ email, email_verified: true, given_name: 'Ada', amr: ['pwd'] });
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);

  it.each([
    { width: 390, height: 844, javaScript: false },
    { width: 1280, height: 800, javaScript: true },
  ])('resets a forgotten password from the sign-in page at $width px (JavaScript $javaScript)', async ({ width, height, javaScript }) => {
    const username = `rita-${randomBytes(3).toString('hex')}`;
    const email = `${username}@example.com`;
    const created = await t.admin.request('POST', '/realms/people/users', { username, password: GOOD_PASSWORD, claims: { email, email_verified: true } });
    expect(created.statusCode, created.body).toBe(201);
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: javaScript });
    try {
      await page.setViewportSize({ width, height });
      const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: callback.redirectUri, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      await page.goto(`${issuer}/authorize?${query}`);
      await Promise.all([page.waitForURL(startsWith(`${issuer}/reset?`)), page.getByRole('link', { name: 'Forgot your password?' }).click()]);
      await expectFits(page);
      await page.getByLabel('Username or email address').fill(email);
      await clickAndWait(page, 'Send the link', startsWith(`${issuer}/reset?`));
      await expect(page.title()).resolves.toBe('Check your mail · people');
      await expectFits(page);

      await page.goto(linkIn(await mail.nextMail(email), '/reset'));
      await expect(page.title()).resolves.toBe('Choose a new password · people');
      await expectFits(page);
      await page.getByLabel('New password').fill('short');
      await clickAndWait(page, 'Set the password', startsWith(`${issuer}/reset?`));
      await expect(page.getByRole('alert').innerText()).resolves.toBe('The password must be at least 8 characters.');
      await page.getByLabel('New password').fill('copper-meadow-47-sailing');
      await clickAndWait(page, 'Set the password', startsWith(`${issuer}/reset?`));
      await expect(page.title()).resolves.toBe('Password changed · people');
      await expectFits(page);

      await page.goto(`${issuer}/authorize?${query}`);
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Password').fill('copper-meadow-47-sailing');
      await clickAndWait(page, 'Sign in', (url) => `${url.origin}${url.pathname}` === callback.redirectUri);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('opens the registration form for prompt=create at 390 px and sends the code after it, without a second sign-in', async () => {
    await t.admin.createRealm('newcomers', { self_registration: true, allow_consent_bypass: true });
    const newcomersClient = (
      await t.admin.createClient('newcomers', { client_type: 'public', redirect_uris: [callback.redirectUri], grant_types: ['authorization_code'], scope: 'openid email', skip_consent: true })
    ).client_id;
    const newcomers = `${t.baseUrl}/oauth2/newcomers`;
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: newcomersClient,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid email',
        prompt: 'create',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${newcomers}/authorize?${query}`);
      expect(page.url()).toMatch(startsWith(`${newcomers}/register?transaction=`));
      await expect(page.title()).resolves.toBe('Create an account · newcomers');
      await expectFits(page);
      const username = `neo-${randomBytes(3).toString('hex')}`;
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Email address').fill(`${username}@example.com`);
      await page.getByLabel('Password').fill(GOOD_PASSWORD);
      await clickAndWait(page, 'Create account', (url) => `${url.origin}${url.pathname}` === callback.redirectUri);

      const code = new URL(page.url()).searchParams.get('code')!;
      const response = await fetch(`${newcomers}/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: newcomersClient, code_verifier: verifier }),
      });
      const tokens = (await response.json()) as { id_token: string };
      expect(response.status, JSON.stringify(tokens)).toBe(200);
      expect(decodeJwt(tokens.id_token)).toMatchObject({ email: `${username}@example.com`, email_verified: false, amr: ['pwd'] });
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
