import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type TestUser, createUser } from '../support/users.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, expectFailurePageWithWayBack, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * The page that ends the sign-in of a disabled person, drawn outside the error handler, in real
 * Chromium: its reference and the way back to the application, at a phone's and a desktop's
 * width, with no sideways scrolling and WCAG AA contrast, in each language.
 */
const skipReason = browserSkipReason('test/browser/sign-in-failure-pages.test.ts');

const TEXTS = {
  en: { username: 'Username', password: 'Password', signIn: 'Sign in', back: 'Back to', disabled: 'This account is disabled' },
  de: { username: 'Benutzername', password: 'Passwort', signIn: 'Anmelden', back: 'Zurück zu', disabled: undefined },
  fr: { username: 'Nom d’utilisateur', password: 'Mot de passe', signIn: 'Se connecter', back: 'Retour à', disabled: undefined },
} as const;

describe.skipIf(skipReason !== undefined)(`the disabled-account page in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let user: TestUser;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    browser = await launchChromium();
    await t.admin.createRealm('closed', { display_name: 'Closed Bank' });
    await t.admin.createClient('closed', {
      client_id: 'ledger',
      client_type: 'public',
      client_name: 'Ledger',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    user = await createUser(t.admin, 'closed', 'dora');
    expect((await t.admin.request('PATCH', '/realms/closed/users/dora', { enabled: false })).statusCode).toBe(200);
    issuer = `${t.baseUrl}/oauth2/closed`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closeCallbackServer(callback);
  });

  /** Ledger's authorization request, answered by the sign-in page. */
  async function openSignIn(page: Page): Promise<void> {
    const query = new URLSearchParams({
      client_id: 'ledger', response_type: 'code', redirect_uri: callback.redirectUri, scope: 'openid profile', state: 's',
      code_challenge: pkce().challenge, code_challenge_method: 'S256',
    });
    await page.goto(`${issuer}/authorize?${query}`);
    await page.waitForURL(startsWith(`${issuer}/login`));
  }

  for (const language of ['en', 'de', 'fr'] as const) {
    it(`shows the reference and the way back at 390 and 1280 px, in ${language}`, async () => {
      const texts = TEXTS[language];
      const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
      await context.setExtraHTTPHeaders({ 'accept-language': language });
      try {
        await openSignIn(page);
        await page.getByLabel(texts.username).fill('dora');
        await page.getByLabel(texts.password, { exact: true }).fill(user.password);
        await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: texts.signIn, exact: true }).click()]);
        await page.waitForSelector('p.reference');
        if (texts.disabled) await expect(page.getByRole('alert').textContent()).resolves.toContain(texts.disabled);
        await expectFailurePageWithWayBack(page, { back: texts.back, application: 'Ledger', origin: new URL(callback.redirectUri).origin });
        expect(problems.violations).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`shows the reference and the way back on the registration page the realm does not offer, reached from a sign-in, in ${language}`, async () => {
      const texts = TEXTS[language];
      const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
      await context.setExtraHTTPHeaders({ 'accept-language': language });
      try {
        await openSignIn(page);
        const transaction = new URL(page.url()).searchParams.get('transaction');
        expect(transaction).toBeTruthy();
        const answer = await page.goto(`${issuer}/register?transaction=${transaction}`);
        expect(answer?.status()).toBe(404);
        await expectFailurePageWithWayBack(page, { back: texts.back, application: 'Ledger', origin: new URL(callback.redirectUri).origin });
        expect(problems.violations).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
