import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { browserSkipReason, closeCallbackServer, launchChromium, signIn, sleep, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * A step-up in a real Chromium (CONTRACT.md §8): signed in for `shop` with a password, the same
 * browser authorizing `bank`, whose journey asks a one-time code too, goes straight to the
 * code's page, and bank's ID token names both methods.
 */
const skipReason = browserSkipReason('test/browser/step-up.test.ts');

const PASSWORD = 'correct horse battery';
const PERIOD_MS = 30_000;

/** Waits, when the current time step ends within 3 s, for the next one, so that the code typed is still valid when checked. */
async function awayFromStepEnd(): Promise<void> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < 3_000) await sleep(left + 100);
}

describe.skipIf(skipReason !== undefined)(`a step-up in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
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
    await closeCallbackServer(callback);
  });

  const isCallback = (url: URL) => `${url.origin}${url.pathname}` === callback.redirectUri;

  /** Opens /authorize for the client; answers the PKCE verifier of the request. */
  async function authorize(page: Page, issuer: string, clientId: string): Promise<string> {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.redirectUri,
      scope: 'openid profile',
      state: 'step-up',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${issuer}/authorize?${query}`);
    return verifier;
  }

  async function amrOf(issuer: string, clientId: string, code: string, verifier: string): Promise<unknown> {
    const response = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
    });
    const tokens = (await response.json()) as { id_token: string };
    expect(response.status, JSON.stringify(tokens)).toBe(200);
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer}/connect/jwk_uri`)), { issuer, audience: clientId });
    return payload.amr;
  }

  it('asks the one-time code, and only it, when the session of shop authorizes bank', async () => {
    await t.admin.createRealm('stepup', { allow_consent_bypass: true });
    const created = await t.admin.request('POST', '/realms/stepup/users', { username: 'alice', password: PASSWORD });
    expect(created.statusCode, created.body).toBe(201);
    const secret = ((await t.admin.request('POST', '/realms/stepup/users/alice/totp')).json() as { secret: string }).secret;
    const clientOf = async () =>
      (
        await t.admin.createClient('stepup', {
          client_type: 'public',
          redirect_uris: [callback.redirectUri],
          grant_types: ['authorization_code'],
          scope: 'openid profile',
          skip_consent: true,
        })
      ).client_id;
    const shop = await clientOf();
    const bank = await clientOf();
    const journey = {
      start: 'pw',
      nodes: {
        pw: { type: 'password', next: { success: 'which' } },
        which: { type: 'condition', if: { client_in: [bank] }, next: { true: 'otp', false: 'done' } },
        otp: { type: 'otp', next: { success: 'done' } },
      },
    };
    expect((await t.admin.request('PUT', '/realms/stepup/journeys/default', journey)).statusCode).toBeLessThan(300);
    const issuer = `${t.baseUrl}/oauth2/stepup`;

    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const shopVerifier = await authorize(page, issuer, shop);
      await signIn(page, 'alice', PASSWORD, isCallback);
      expect(await amrOf(issuer, shop, new URL(page.url()).searchParams.get('code')!, shopVerifier)).toEqual(['pwd']);

      // The same browser at bank: the code's page at once, no password asked again.
      const bankVerifier = await authorize(page, issuer, bank);
      expect(page.url()).toMatch(startsWith(`${issuer}/login?`));
      await expect(page.title()).resolves.toMatch(/^One-time code/);
      await expect(page.getByLabel('Password').count()).resolves.toBe(0);
      await awayFromStepEnd();
      await page.getByLabel('Code from your authenticator app').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
      await Promise.all([page.waitForURL(isCallback), page.getByRole('button', { name: 'Verify' }).click()]);
      expect(await amrOf(issuer, bank, new URL(page.url()).searchParams.get('code')!, bankVerifier)).toEqual(['pwd', 'otp', 'mfa']);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
