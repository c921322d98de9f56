import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, launchChromium, signIn, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * The account page in a real Chromium with JavaScript on: after a code flow that gave the
 * client a refresh token, the person opens `{issuer}/account`, revokes the application, and
 * the refresh token fails from then on. No console error, page error or CSP violation.
 */
const skipReason = browserSkipReason('test/browser/account-consent.test.ts');

const PASSWORD = 'correct horse battery';

describe.skipIf(skipReason !== undefined)(`revoking an application on the account page in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    issuer = `${t.baseUrl}/oauth2`;
    const created = await t.admin.request('POST', '/realms/root/users', { username: 'alice', password: PASSWORD });
    expect(created.statusCode, created.body).toBe(201);
    const client = await t.admin.createClient('root', {
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      client_name: 'Revocable App',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile',
    });
    clientId = client.client_id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closeCallbackServer(callback);
  });

  const tokenRequest = (form: Record<string, string>) =>
    fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...form }),
    });

  it('revokes the application, and its refresh token fails', async () => {
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile',
        state: 'account',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${issuer}/authorize?${query}`);
      await signIn(page, 'alice', PASSWORD, startsWith(`${issuer}/consent?`));
      await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.locator('button[name=decision][value=allow]').click()]);
      const code = new URL(page.url()).searchParams.get('code')!;

      const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, code_verifier: verifier });
      const tokens = (await exchanged.json()) as { refresh_token: string };
      expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
      const firstRefresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(firstRefresh.status).toBe(200);
      const { refresh_token: refreshToken } = (await firstRefresh.json()) as { refresh_token: string };

      // The account page: signed in already, the application is listed with its scopes.
      await page.goto(`${issuer}/account`);
      await expect(page.title()).resolves.toMatch(/^Your account/);
      const application = page.locator('li.application', { hasText: 'Revocable App' });
      await expect(application.innerText()).resolves.toContain('openid, profile');
      await Promise.all([page.waitForURL(startsWith(`${issuer}/account?notice=`)), application.getByRole('button', { name: 'Revoke' }).click()]);
      await expect(page.getByRole('status').innerText()).resolves.toBe('Revocable App no longer has access to your account.');
      await expect(page.locator('li.application', { hasText: 'Revocable App' }).count()).resolves.toBe(0);

      const refused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken });
      expect(refused.status).toBe(400);
      await expect(refused.json()).resolves.toMatchObject({ error: 'invalid_grant' });
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
