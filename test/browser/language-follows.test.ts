import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { GOOD_PASSWORD } from '../support/self-service.js';
import { type CallbackServer, browserSkipReason, clickAndWait, closeCallbackServer, expectFits, launchChromium, startCallbackServer, startsWith } from './support.js';

/**
 * The language follows the person (CONTRACT.md §16) in a real Chromium whose own language is
 * English: someone who starts in German (`ui_locales=de`) stays in German through the
 * registration, the verification mail (read from the SMTP server), its link, the account page
 * and a device approval, at a phone's width and a desktop's; every page carries the language
 * picker and nothing is wider than the window.
 */
const skipReason = browserSkipReason('test/browser/language-follows.test.ts');
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe.skipIf(skipReason !== undefined)(`a person who starts in German stays in German${skipReason ? ` (${skipReason})` : ''}`, () => {
  let mail: TestMailServer;
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let webClient: string;
  let tvClient: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    mail = await startMailServer();
    t = await startTestApp({ listen: true, mail: mail.settings });
    browser = await launchChromium();
    await t.admin.createRealm('sprachen', { self_registration: true, email_verification: true, allow_consent_bypass: true });
    const common = { client_type: 'public', scope: 'openid profile email' } as const;
    webClient = (await t.admin.createClient('sprachen', { ...common, redirect_uris: [callback.redirectUri], grant_types: ['authorization_code'], skip_consent: true })).client_id;
    tvClient = (await t.admin.createClient('sprachen', { ...common, client_name: 'Wohnzimmer-TV', token_endpoint_auth_method: 'none', grant_types: [DEVICE_CODE_GRANT] })).client_id;
    issuer = `${t.baseUrl}/oauth2/sprachen`;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mail?.close();
    await closeCallbackServer(callback);
  });

  /** The page is in German, offers the picker with German marked, and fits the window. */
  async function expectGerman(page: Page, title: string): Promise<void> {
    await expect(page.title()).resolves.toBe(`${title} · sprachen`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    const picker = page.getByRole('navigation', { name: 'Sprache' });
    await expect(picker.getByRole('link', { name: 'Deutsch' }).getAttribute('aria-current')).resolves.toBe('true');
    await expect(picker.getByRole('link', { name: 'English' }).isVisible()).resolves.toBe(true);
    await expectFits(page);
  }

  it.each([
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ])('from registration to a device approval at $width px', async ({ width, height }) => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width, height } });
    context.setDefaultTimeout(15_000);
    try {
      const page = await context.newPage();
      const { challenge } = pkce();
      const query = new URLSearchParams({
        client_id: webClient,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile email',
        state: 'sprachen',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ui_locales: 'de',
      });
      await page.goto(`${issuer}/authorize?${query}`);
      await expectGerman(page, 'Anmelden');
      await Promise.all([page.waitForURL(startsWith(`${issuer}/register?`)), page.getByRole('link', { name: 'Konto erstellen' }).click()]);

      await expectGerman(page, 'Konto erstellen');
      const username = `ada-${randomBytes(3).toString('hex')}`;
      const email = `${username}@example.com`;
      await page.getByLabel('Benutzername').fill(username);
      await page.getByLabel('E-Mail-Adresse').fill(email);
      await page.getByLabel('Passwort').fill(GOOD_PASSWORD);
      await clickAndWait(page, 'Konto erstellen', startsWith(`${issuer}/login?`));
      await expectGerman(page, 'E-Mail-Adresse bestätigen');
      await expect(page.getByRole('button', { name: 'E-Mail erneut senden' }).isVisible()).resolves.toBe(true);

      const received = await mail.nextMail(email);
      expect(received.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse für sprachen');
      const link = /(https?:\/\/\S+\/verify\?\S+)/.exec(received.text)?.[1];
      expect(new URL(link!).searchParams.get('ui_locales')).toBe('de');
      const mailTab = await context.newPage();
      await mailTab.goto(link!);
      await expectGerman(mailTab, 'E-Mail-Adresse bestätigt');
      await mailTab.close();

      await clickAndWait(page, 'Weiter', (url) => `${url.origin}${url.pathname}` === callback.redirectUri);

      // Pages without ui_locales in their address: the session's language.
      await page.goto(`${issuer}/account`);
      await expectGerman(page, 'Ihr Konto');

      const started = await fetch(`${issuer}/device/code`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: tvClient, scope: 'openid profile' }),
      });
      const { user_code: userCode } = (await started.json()) as { user_code: string };
      await page.goto(`${issuer}/device/user`);
      await expectGerman(page, 'Gerät verbinden');
      await page.getByLabel('Geben Sie den Code ein, den Ihr Gerät anzeigt').fill(userCode);
      await clickAndWait(page, 'Weiter', startsWith(`${issuer}/consent?`));
      await expectGerman(page, 'Zugriff erlauben?');
      await expect(page.locator('main').innerText()).resolves.toContain('Wohnzimmer-TV möchte:');
      await clickAndWait(page, 'Erlauben', startsWith(`${issuer}/consent`));
      await expectGerman(page, 'Gerät verbunden');
    } finally {
      await context.close();
    }
  }, 180_000);
});
