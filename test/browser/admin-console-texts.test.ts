import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { measurePage } from './page-metrics.js';
import { type Problems, browserSkipReason, launchChromium, startsWith, watchedContext } from './support.js';

/**
 * The console's Texts tab in Chromium (CONTRACT.md §16): a language chosen, every text of the
 * catalogue by area with the shipped words, filtered; a German text worded anew and saved (the
 * API has it, a German sign-in page shows it), a refusal of the server shown on its field, the
 * text reset; laid out at a phone's and a desktop's width.
 */
const skipReason = browserSkipReason('test/browser/admin-console-texts.test.ts');

const REALM = 'shop';
const REDIRECT = 'https://app.shop.example/callback';

describe.skipIf(skipReason !== undefined)(`the console's texts in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: { context: BrowserContext; page: Page; problems: Problems };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    await t.admin.createRealm(REALM);
    await t.admin.createClient(REALM, { client_id: 'till', client_type: 'public', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], scope: 'openid' });
    admin = await watchedContext(browser, { javaScriptEnabled: true, locale: 'en-GB' });
    const { page } = admin;
    await page.goto(`${t.baseUrl}/admin/console#/realms/${REALM}/texts/de`);
    await page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('form', { name: 'Texts in Deutsch' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const said = (page: Page, text: string | RegExp) => page.locator('#messages p').filter({ hasText: text }).first().waitFor();
  const storedTexts = async () => (await t.admin.request('GET', `/realms/${REALM}/texts/de`)).json() as Record<string, string>;

  /** The title of the realm's sign-in page in German, as Chromium shows it. */
  async function germanSignInTitle(): Promise<string> {
    const { context, page } = await watchedContext(browser, { javaScriptEnabled: false, locale: 'de-DE' });
    try {
      const query = new URLSearchParams({ client_id: 'till', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      await page.goto(`${t.baseUrl}/oauth2/${REALM}/authorize?${query}`);
      await page.waitForURL(startsWith(`${t.baseUrl}/oauth2/${REALM}/login`));
      return await page.title();
    } finally {
      await context.close();
    }
  }

  async function expectWellLaidOut(page: Page): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const metrics = await measurePage(page);
      const where = `at ${width} px`;
      expect(metrics.unreadable, where).toEqual([]);
      expect(metrics.scrollWidth, `${where}: sideways scrolling`).toBeLessThanOrEqual(metrics.innerWidth);
      expect(metrics.overflowing, `${where}: boxes past the window`).toEqual([]);
      expect(metrics.contrasts.filter((text) => text.ratio < text.required), `${where}: texts below WCAG AA`).toEqual([]);
    }
  }

  it('filters the texts, words one anew in German, shows the server\u2019s refusal, and resets it', async () => {
    const { page, problems } = admin;
    const form = page.getByRole('form', { name: 'Texts in Deutsch' });
    const title = form.getByRole('textbox', { name: /^signIn\.titles\.password\b/ });
    // The shipped German words stand in the field until the realm has its own.
    await expect(title.getAttribute('placeholder')).resolves.toBe('Anmelden');
    await expect(form.getByRole('group', { name: /^Sign-in \(signIn\)$/ }).isVisible()).resolves.toBe(true);
    // A count by the plural categories of German.
    await expect(form.getByRole('textbox', { name: /^account\.recoveryCodes\.left#one\b/ }).getAttribute('placeholder')).resolves.toMatch(/\{0\} unbenutzten/);
    await expect(form.getByRole('textbox', { name: /^account\.recoveryCodes\.left#many\b/ }).count()).resolves.toBe(0);
    await expectWellLaidOut(page);

    // The filter shows the texts whose key or words hold it, and the areas that have one.
    await page.getByRole('searchbox', { name: /^Filter/ }).fill('titles.password');
    await page.getByRole('status').filter({ hasText: /^1 of \d+ texts shown\.$/ }).waitFor();
    await expect(title.isVisible()).resolves.toBe(true);
    await expect(form.getByRole('textbox', { name: /^signIn\.username\b/ }).isVisible()).resolves.toBe(false);
    await expect(form.getByRole('group', { name: /\(mail\)$/ }).isVisible()).resolves.toBe(false);

    await title.fill('Willkommen im Laden');
    await form.getByRole('button', { name: 'Save the texts in Deutsch' }).click();
    await said(page, 'The texts in Deutsch are saved.');
    expect(await storedTexts()).toEqual({ 'signIn.titles.password': 'Willkommen im Laden' });
    expect(await germanSignInTitle()).toBe(`Willkommen im Laden · ${REALM}`);

    // A text that drops its placeholder: the server's refusal is said, and its field marked.
    await page.getByRole('searchbox', { name: /^Filter/ }).fill('mail.passwordReset.subject');
    const subject = form.getByRole('textbox', { name: /^mail\.passwordReset\.subject\b/ });
    await subject.fill('Neues Passwort');
    await form.getByRole('button', { name: 'Save the texts in Deutsch' }).click();
    await said(page, /must keep the placeholders of the original: \{0\}/);
    await expect(subject.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await storedTexts()).toEqual({ 'signIn.titles.password': 'Willkommen im Laden' });
    await subject.fill('');

    // Reset: that text shows the shipped words again.
    await page.getByRole('searchbox', { name: /^Filter/ }).fill('');
    await form.getByRole('button', { name: 'Reset signIn.titles.password' }).click();
    await said(page, 'signIn.titles.password shows the shipped words again.');
    expect(await storedTexts()).toEqual({});
    await expect(title.inputValue()).resolves.toBe('');
    expect(await germanSignInTitle()).toBe(`Anmelden · ${REALM}`);
    await expectWellLaidOut(page);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.violations).toEqual([]);
    expect(problems.console.filter((line) => !line.includes('status of 400'))).toEqual([]);
  }, 120_000);

  it('speaks the console\u2019s language: in French, its words are French, laid out at both widths', async () => {
    const french = await watchedContext(browser, { javaScriptEnabled: true, locale: 'fr-FR' });
    try {
      // The tab's own words are under test here, not the sign-in form's: the token is the tab's already.
      await french.context.addInitScript({ content: `sessionStorage.setItem('realmgate.admin_token', ${JSON.stringify(ADMIN_TOKEN)});` });
      const { page } = french;
      await page.goto(`${t.baseUrl}/admin/console#/realms/${REALM}/texts/fr`);
      const form = page.getByRole('form', { name: 'Textes en Français' });
      await form.waitFor();
      await expect(form.getByRole('group', { name: 'Connexion (signIn)' }).isVisible()).resolves.toBe(true);
      await expect(form.getByRole('button', { name: 'Enregistrer les textes en Français' }).isVisible()).resolves.toBe(true);
      await expect(form.getByRole('textbox', { name: /^account\.recoveryCodes\.left#many\b/ }).getAttribute('placeholder')).resolves.toMatch(/^Il vous reste \{0\} codes/);
      await page.getByRole('status').filter({ hasText: /^\d+ textes affichés sur \d+\.$/ }).waitFor();
      await expectWellLaidOut(page);
      expect(french.problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await french.context.close();
    }
  }, 60_000);

  it('removes every text of a language once confirmed, and changes language by the picker', async () => {
    const { page } = admin;
    expect((await t.admin.request('PUT', `/realms/${REALM}/texts/fr`, { 'signIn.username': 'Identifiant' })).statusCode).toBe(200);
    await page.getByRole('combobox', { name: 'Language of the texts' }).selectOption('fr');
    const form = page.getByRole('form', { name: 'Texts in Français' });
    await form.waitFor();
    await expect(form.getByRole('textbox', { name: /^signIn\.username\b/ }).inputValue()).resolves.toBe('Identifiant');
    await form.getByRole('button', { name: 'Remove all texts in Français' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await said(page, 'The realm shows the shipped texts in Français again.');
    expect((await t.admin.request('GET', `/realms/${REALM}/texts/fr`)).json()).toEqual({});
    await expect(form.getByRole('textbox', { name: /^signIn\.username\b/ }).inputValue()).resolves.toBe('');
  }, 60_000);
});
