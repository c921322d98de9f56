import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio } from '../../src/pages/contrast.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { createUser } from '../support/users.js';
import { measurePage } from './page-metrics.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, expectFailurePageWithWayBack, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * What the pages do for the person in Chromium (CONTRACT.md §16, issue 40): the focus ring stands
 * out from a yellow brand's buttons and from the page; password fields get a show-password button
 * with script and stay plain password fields without; the account page has two columns on a
 * desktop and one on a phone, its dates in the browser's time zone and the page's language, its
 * name and email form in English, German and French, without sideways scrolling or text below
 * WCAG AA; the error page shows the way back to the application and its reference at both widths.
 */
const skipReason = browserSkipReason('test/browser/page-details.test.ts');

const YELLOW = '#ffd700';
const LANGUAGES = ['en', 'de', 'fr'] as const;
const TEXTS = {
  en: { username: 'Username', password: 'Password', signIn: 'Sign in', show: 'Show', hide: 'Hide', profile: 'Name and email', back: 'Back to' },
  de: { username: 'Benutzername', password: 'Passwort', signIn: 'Anmelden', show: 'Anzeigen', hide: 'Verbergen', profile: 'Name und E-Mail', back: 'Zurück zu' },
  fr: { username: 'Nom d’utilisateur', password: 'Mot de passe', signIn: 'Se connecter', show: 'Afficher', hide: 'Masquer', profile: 'Nom et adresse e-mail', back: 'Retour à' },
} as const;

/** `rgb(r, g, b)` as `#rrggbb`. */
function hexOf(rgb: string): string {
  const parts = /^rgba?\((\d+), (\d+), (\d+)/.exec(rgb);
  if (!parts) throw new Error(`not rgb: ${rgb}`);
  return `#${parts.slice(1, 4).map((part) => Number(part).toString(16).padStart(2, '0')).join('')}`;
}

describe.skipIf(skipReason !== undefined)(`the pages' details in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    browser = await launchChromium();
    await t.admin.createRealm('yellow', { display_name: 'Sunflower Bank', primary_color: YELLOW, allow_consent_bypass: true });
    clientId = (
      await t.admin.createClient('yellow', {
        client_type: 'public',
        client_name: 'Sunflower App',
        redirect_uris: [callback.redirectUri],
        grant_types: ['authorization_code'],
        scope: 'openid profile email',
        skip_consent: true,
      })
    ).client_id;
    issuer = `${t.baseUrl}/oauth2/yellow`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closeCallbackServer(callback);
  });

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `${issuer}/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.redirectUri,
      scope: 'openid profile email',
      state: 'details',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      ...extra,
    })}`;

  /** The focus ring of the focused element: its colour and width. */
  const ringOf = async (page: Page) =>
    (await page.evaluate(`(() => { const style = getComputedStyle(document.activeElement); return { color: style.outlineColor, width: style.outlineWidth, style: style.outlineStyle }; })()`)) as {
      color: string;
      width: string;
      style: string;
    };

  for (const scheme of ['light', 'dark'] as const) {
    it(`draws a focus ring that stands out from a yellow brand's button and from the page (${scheme} scheme)`, async () => {
      const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
      try {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(authorizeUrl());
        await page.waitForURL(startsWith(`${issuer}/login`));
        const button = `document.querySelector('button.primary')`;
        expect(hexOf((await page.evaluate(`getComputedStyle(${button}).backgroundColor`)) as string)).toBe(YELLOW);
        // Keyboard focus (what :focus-visible shows a ring for): Tab until the yellow button has it.
        const focused = async () => (await page.evaluate(`${button} === document.activeElement`)) as boolean;
        for (let i = 0; i < 12 && !(await focused()); i++) await page.keyboard.press('Tab');
        expect(await focused()).toBe(true);
        const ring = await ringOf(page);
        expect(ring.style).toBe('solid');
        expect(ring.width).toBe('3px');
        const background = hexOf((await page.evaluate(`getComputedStyle(document.body).backgroundColor`)) as string);
        const colour = hexOf(ring.color);
        expect(contrastRatio(colour, YELLOW), `ring ${colour} beside ${YELLOW}`).toBeGreaterThanOrEqual(3);
        expect(contrastRatio(colour, background), `ring ${colour} on ${background}`).toBeGreaterThanOrEqual(3);
        expect(problems.violations).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }

  it('adds a show-password button with script, and leaves a plain password field without', async () => {
    const user = await createUser(t.admin, 'yellow', 'toggle-user');
    const scripted = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { page } = scripted;
      await page.goto(authorizeUrl());
      await page.waitForURL(startsWith(`${issuer}/login`));
      const field = page.getByLabel('Password', { exact: true });
      const toggle = page.locator('button.show-password');
      await expect(toggle.count()).resolves.toBe(1);
      await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
      await field.fill(user.password);
      await toggle.click();
      await expect(field.getAttribute('type')).resolves.toBe('text');
      await expect(toggle.textContent()).resolves.toBe('Hide');
      await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
      await toggle.click();
      await expect(field.getAttribute('type')).resolves.toBe('password');
      await expect(toggle.textContent()).resolves.toBe('Show');
      // The button submits nothing: the form still signs in with what was typed.
      await page.getByLabel('Username').fill(user.username);
      await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(scripted.problems.violations).toEqual([]);
      expect(scripted.problems.pageErrors).toEqual([]);
    } finally {
      await scripted.context.close();
    }

    const plain = await watchedContext(browser, { javaScriptEnabled: false });
    try {
      const { page } = plain;
      await page.goto(authorizeUrl());
      await page.waitForURL(startsWith(`${issuer}/login`));
      await expect(page.locator('button.show-password').count()).resolves.toBe(0);
      await expect(page.getByLabel('Password', { exact: true }).getAttribute('type')).resolves.toBe('password');
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.getByRole('button', { name: 'Sign in' }).click()]);
    } finally {
      await plain.context.close();
    }
  }, 60_000);

  for (const language of LANGUAGES) {
    it(`lays the account page out in two columns on a desktop and one on a phone, dates in local time, in ${language}`, async () => {
      const texts = TEXTS[language];
      const user = await createUser(t.admin, 'yellow', `columns-${language}`, { claims: { email: `columns-${language}@example.com`, email_verified: true } });
      const context = await browser.newContext({ locale: language, timezoneId: 'Asia/Tokyo' });
      await context.setExtraHTTPHeaders({ 'accept-language': language });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      try {
        await page.goto(authorizeUrl());
        await page.getByLabel(texts.username).fill(user.username);
        await page.getByLabel(texts.password, { exact: true }).fill(user.password);
        await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.getByRole('button', { name: texts.signIn, exact: true }).click()]);
        await page.goto(`${issuer}/account`);
        expect(await page.getAttribute('html', 'lang')).toBe(language);
        await expect(page.locator('h2', { hasText: texts.profile }).count()).resolves.toBe(1);

        // The session's sign-in time, written again by the page's script in Tokyo's time and the page's language.
        const time = page.locator('li.session time').first();
        const instant = new Date((await time.getAttribute('datetime'))!);
        const tokyo = (await page.evaluate(
          `new Intl.DateTimeFormat(${JSON.stringify(language)}, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(new Date(${instant.getTime()}))`,
        )) as string;
        await expect(time.textContent()).resolves.toBe(tokyo);
        expect(tokyo).not.toContain('UTC');

        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          const lefts = (await page.evaluate(`[...new Set([...document.querySelectorAll('section.account')].map((section) => Math.round(section.getBoundingClientRect().left)))]`)) as number[];
          expect(lefts.length, `columns at ${width} px`).toBe(width === 1280 ? 2 : 1);
          const metrics = await measurePage(page);
          expect(metrics.scrollWidth, `sideways scrolling at ${width} px`).toBeLessThanOrEqual(metrics.innerWidth);
          expect(metrics.overflowing).toEqual([]);
          expect(metrics.unreadable).toEqual([]);
          expect(metrics.contrasts.filter((text) => text.ratio < text.required)).toEqual([]);
        }
        // The name form works in the page's language.
        await page.locator('input[name=given_name]').fill('Ada');
        await Promise.all([page.waitForURL(startsWith(`${issuer}/account?notice=`)), page.locator('form[action$="/account/profile/names"] button').click()]);
        await expect(page.locator('input[name=given_name]').inputValue()).resolves.toBe('Ada');
        await expect(page.getByRole('status').count()).resolves.toBe(1);
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    }, 90_000);

    it(`shows the error page's way back and reference at a phone's and a desktop's width, in ${language}`, async () => {
      const texts = TEXTS[language];
      const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
      await context.setExtraHTTPHeaders({ 'accept-language': language });
      try {
        await page.goto(authorizeUrl());
        await page.waitForURL(startsWith(`${issuer}/login`));
        // The sign-in form, its CSRF token spoiled: the page cannot go on.
        await page.locator('input[name=csrf]').first().evaluate((input) => input.setAttribute('value', 'spoiled'));
        await page.getByLabel(texts.username).fill('nobody');
        await page.getByLabel(texts.password, { exact: true }).fill('nothing');
        await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: texts.signIn, exact: true }).click()]);
        await expectFailurePageWithWayBack(page, { back: texts.back, application: 'Sunflower App', origin: new URL(callback.redirectUri).origin });
        expect(problems.violations).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
