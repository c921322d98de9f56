import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { createUser } from '../support/users.js';
import { type PageMetrics, measurePage } from './page-metrics.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * Every page a person sees, in each language and colour scheme, at a phone's widths (320 and
 * 390 px) and a desktop's (1280 px), in Chromium: nothing is wider than the window (no sideways
 * scrolling, no element's box past its edges), however long the client's name, a scope's name
 * or a URL, and every text reaches WCAG AA contrast with what is behind it (4.5:1, 3:1 for
 * large text).
 */
const skipReason = browserSkipReason('test/browser/layout-contrast.test.ts');

const LANGUAGES = ['en', 'de', 'fr'] as const;
const SCHEMES = ['light', 'dark'] as const;
const WIDTHS = [320, 390, 1280] as const;
const LONG_CLIENT_NAME = 'Quarterly-Procurement-and-Invoicing-Dashboard-of-the-Northern-Region-Subsidiaries';
const LONG_SCOPE = 'https://api.northwind.example/scopes/invoices.read.all-regions-and-subsidiaries';
/** The sign-in buttons by language, to submit the password form. */
const SIGN_IN = { en: 'Sign in', de: 'Anmelden', fr: 'Se connecter' } as const;
const ALLOW = { en: 'Allow', de: 'Erlauben', fr: 'Autoriser' } as const;

describe.skipIf(skipReason !== undefined)(`layout and contrast of the pages in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
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
    await t.admin.createRealm('look', { self_registration: true, password_reset: true, display_name: 'Northwind Traders', primary_color: '#0b6e4f' });
    await t.admin.putScope('look', LONG_SCOPE, 'Read the invoices of every region and subsidiary, including the archived ones');
    clientId = (
      await t.admin.createClient('look', {
        client_type: 'public',
        client_name: LONG_CLIENT_NAME,
        redirect_uris: [callback.redirectUri],
        grant_types: ['authorization_code'],
        scope: `openid profile email ${LONG_SCOPE}`,
      })
    ).client_id;
    issuer = `${t.baseUrl}/oauth2/look`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mail?.close();
    await closeCallbackServer(callback);
  });

  /** The page at every width: no sideways scrolling, no box past the edges, every text's contrast. */
  async function expectWellLaidOut(page: Page, name: string, seen: Map<string, number>): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      const metrics: PageMetrics = await measurePage(page);
      const where = `${name} at ${width} px (${page.url()})`;
      expect(metrics.unreadable, where).toEqual([]);
      expect(metrics.scrollWidth, `${where}: sideways scrolling`).toBeLessThanOrEqual(metrics.innerWidth);
      expect(metrics.overflowing, `${where}: boxes past the window`).toEqual([]);
      expect(metrics.contrasts.length, `${where}: no text measured`).toBeGreaterThanOrEqual(3);
      const failing = metrics.contrasts.filter((text) => text.ratio < text.required);
      expect(failing, `${where}: texts below WCAG AA`).toEqual([]);
      const lowest = Math.min(...metrics.contrasts.map((text) => text.ratio));
      seen.set(name, Math.min(seen.get(name) ?? Number.POSITIVE_INFINITY, lowest));
    }
  }

  for (const language of LANGUAGES) {
    for (const scheme of SCHEMES) {
      it(`fits every width and reaches AA contrast in ${language}, ${scheme} scheme`, async () => {
        const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
        await context.setExtraHTTPHeaders({ 'accept-language': language });
        await page.emulateMedia({ colorScheme: scheme });
        const seen = new Map<string, number>();
        try {
          const user = await createUser(t.admin, 'look', `look-${language}-${scheme}`);
          const query = new URLSearchParams({
            client_id: clientId,
            response_type: 'code',
            redirect_uri: callback.redirectUri,
            scope: `openid profile email ${LONG_SCOPE}`,
            state: 'layout',
            code_challenge: pkce().challenge,
            code_challenge_method: 'S256',
          });
          await page.goto(`${issuer}/authorize?${query}`);
          await page.waitForURL(startsWith(`${issuer}/login`));
          expect(await page.getAttribute('html', 'lang')).toBe(language);
          await expectWellLaidOut(page, 'sign-in', seen);

          await page.getByLabel(language === 'en' ? 'Username' : language === 'de' ? 'Benutzername' : 'Nom d’utilisateur').fill(user.username);
          await page.getByLabel(language === 'en' ? 'Password' : language === 'de' ? 'Passwort' : 'Mot de passe', { exact: true }).fill('not-the-password');
          await page.getByRole('button', { name: SIGN_IN[language], exact: true }).click();
          await page.waitForSelector('p.error');
          await expectWellLaidOut(page, 'sign-in (error)', seen);

          await page.getByLabel(language === 'en' ? 'Password' : language === 'de' ? 'Passwort' : 'Mot de passe', { exact: true }).fill(user.password);
          await Promise.all([page.waitForURL(startsWith(`${issuer}/consent`)), page.getByRole('button', { name: SIGN_IN[language], exact: true }).click()]);
          await expectWellLaidOut(page, 'consent', seen);
          await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.getByRole('button', { name: ALLOW[language] }).click()]);

          for (const [name, path] of [
            ['account', '/account'],
            ['device', '/device/user?user_code=WDJB-MJHT'],
            ['register', '/register'],
            ['reset', '/reset'],
            ['CIBA approval', '/bc-approve?answered=approved'],
            ['sign-out', '/connect/endSession'],
            ['error', '/authorize?client_id=no-such-client-with-a-rather-long-identifier-that-does-not-break-anywhere'],
          ] as const) {
            await page.goto(`${issuer}${path}`);
            expect(await page.getAttribute('html', 'lang'), name).toBe(language);
            await expectWellLaidOut(page, name, seen);
          }
          // The landing page at / (no realm: the default look), its links in the visitor's language.
          await page.goto(`${t.baseUrl}/`);
          expect(await page.getAttribute('html', 'lang'), 'landing').toBe(language);
          await expectWellLaidOut(page, 'landing', seen);
          // A page that says what was done: its notice box.
          await page.goto(`${issuer}/reset`);
          await page.locator('input[name=username]').fill(user.username);
          await Promise.all([page.waitForLoadState('load'), page.locator('button.primary').click()]);
          await page.waitForSelector('p.notice');
          await expectWellLaidOut(page, 'reset (sent)', seen);
          expect(problems.violations).toEqual([]);
          expect(problems.pageErrors).toEqual([]);
        } finally {
          await context.close();
        }
        // The lowest ratio of each page, for a reader of the test's output.
        console.info(`${language} ${scheme}: ${[...seen].map(([name, ratio]) => `${name} ${ratio.toFixed(2)}`).join(', ')}`);
      }, 120_000);
    }
  }
});
