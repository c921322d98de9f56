import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { createUser } from '../support/users.js';
import { type Problems, browserSkipReason, expectReadableInBothSchemes, launchChromium, watchedContext } from './support.js';

/**
 * The admin console in English, German and French (CONTRACT.md §16), in Chromium on a phone
 * (390 px) and a desktop (1280 px): the header's language picker switches the console at once,
 * on the same view and URL, with `<html lang>` and the dates; the realms list, a person's page,
 * the roles, the events and the signing keys speak German, with no sideways scrolling (German
 * words are long) and AA contrast; French, then English again; a reload keeps the choice.
 */
const skipReason = browserSkipReason('test/browser/admin-console-languages.test.ts');

const PHONE = 390;
const DESKTOP = 1280;
/** A moment as each language writes it with dateStyle medium and timeStyle short. */
const DATES = {
  en: /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/,
  de: /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/,
  fr: /^\d{1,2} [a-zéû]+\.? \d{4}(,| à) \d{2}:\d{2}$/,
} as const;

describe.skipIf(skipReason !== undefined)(`the admin console's languages in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let problems: Problems;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    // The console follows the browser's language until one is chosen: this browser asks for English.
    ({ page, problems } = await watchedContext(browser, { javaScriptEnabled: true, locale: 'en-US', timezoneId: 'UTC' }));
    await page.goto(`${t.baseUrl}/admin/console`);
    await page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('table', { name: 'Realms' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const picker = () => page.locator('header select[name=locale]');
  const lang = () => page.locator('html').getAttribute('lang');

  /** Chooses a language in the picker; the console is drawn again in it, on the same URL. */
  async function choose(locale: 'en' | 'de' | 'fr', drawn: string): Promise<void> {
    const url = page.url();
    await picker().selectOption(locale);
    await page.getByText(drawn, { exact: true }).first().waitFor();
    await expect(lang()).resolves.toBe(locale);
    expect(page.url()).toBe(url);
  }

  /** The dates of the view are written as the language writes them. */
  async function expectDates(locale: keyof typeof DATES): Promise<void> {
    const dates = await page.locator('main time').allTextContents();
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(date, locale).toMatch(DATES[locale]);
  }

  /** Opens a tab of the realm by its German label: on the phone through the menu. */
  async function openTab(realm: string, label: string, path: string): Promise<void> {
    const nav = page.getByRole('navigation', { name: 'Realm' });
    if (page.viewportSize()!.width <= PHONE) await nav.locator('summary').click();
    await Promise.all([page.waitForURL(`${t.baseUrl}/admin/console#/realms/${realm}/${path}`), nav.getByRole('link', { name: label, exact: true }).click()]);
    await page.locator('nav a[aria-current=page]').filter({ hasText: new RegExp(`^${label}$`) }).first().waitFor({ state: 'attached' });
  }

  /** Nothing is disabled while a call runs, then the page is measured. */
  async function expectWellLaidOut(name: string): Promise<void> {
    await page.locator('main :disabled').first().waitFor({ state: 'detached' });
    await expectReadableInBothSchemes(page, name);
  }

  it('offers a labelled picker, operable by keyboard, and starts in the browser\'s English', async () => {
    await expect(lang()).resolves.toBe('en');
    await expect(page.getByLabel('Language', { exact: true }).getAttribute('name')).resolves.toBe('locale');
    await expect(picker().locator('option').allTextContents()).resolves.toEqual(['English', 'Deutsch', 'Français']);
    await expectDates('en');
    // The keyboard: the focused picker's next option is German.
    await picker().focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('button', { name: 'Realm anlegen' }).waitFor();
    await expect(lang()).resolves.toBe('de');
    await expect(page.getByLabel('Sprache', { exact: true }).inputValue()).resolves.toBe('de');
    await choose('en', 'Create realm');
  });

  it('words the token form in the language chosen there, the keyboard kept on the picker, and keeps it over a reload', async () => {
    const { context, page: signedOut, problems: itsProblems } = await watchedContext(browser, { javaScriptEnabled: true, locale: 'en-US' });
    await signedOut.goto(`${t.baseUrl}/admin/console`);
    await signedOut.getByRole('button', { name: 'Open the console' }).waitFor();
    // English, German, French: two steps down, the focus never taken by the token's field.
    await signedOut.locator('select[name=locale]').focus();
    await signedOut.keyboard.press('ArrowDown');
    await signedOut.getByRole('button', { name: 'Konsole öffnen' }).waitFor();
    await signedOut.keyboard.press('ArrowDown');
    await signedOut.getByRole('button', { name: 'Ouvrir la console' }).waitFor();
    await expect(signedOut.locator('html').getAttribute('lang')).resolves.toBe('fr');
    await signedOut.reload();
    await signedOut.getByLabel('Jeton d’administration', { exact: true }).waitFor();
    await expect(signedOut.getByLabel('Langue', { exact: true }).inputValue()).resolves.toBe('fr');
    await expect(signedOut.title()).resolves.toBe('Console d’administration · realmgate');
    expect(itsProblems).toEqual({ console: [], pageErrors: [], violations: [] });
    await context.close();
  });

  for (const width of [PHONE, DESKTOP]) {
    it(`walks the realms, a person, the roles, the events and the keys in German at ${width} px, then French, then English`, async () => {
      const realm = `sprachen-${width}`;
      await t.admin.createRealm(realm);
      await createUser(t.admin, realm, 'anna', { claims: { name: 'Anna Schmidt-Bergmann', email: 'anna@example.com' } });
      await t.admin.request('PUT', `/realms/${realm}/roles/rechnungen:freigeben`, { description: 'Rechnungen aller Regionen freigeben' });
      await t.admin.request('PUT', `/realms/${realm}/users/anna/roles/rechnungen:freigeben`);
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.baseUrl}/admin/console#/realms`);
      await page.getByRole('table', { name: 'Realms' }).waitFor();

      // German: the header, the realms, and their dates.
      await choose('de', 'Neuer Realm');
      await expect(page.title()).resolves.toBe('Administrationskonsole · realmgate');
      await expect(page.locator('header h1').textContent()).resolves.toBe('realmgate-Administrationskonsole');
      await expect(page.getByRole('button', { name: 'Token vergessen' }).isVisible()).resolves.toBe(true);
      await page.getByRole('form', { name: 'Realm importieren' }).waitFor();
      await expectDates('de');
      await expectWellLaidOut('realms in German');

      // A person: the list, then their page with its sections.
      await page.getByRole('table', { name: 'Realms' }).getByRole('link', { name: realm, exact: true }).click();
      await openTab(realm, 'Benutzer', 'users');
      await page.getByRole('form', { name: 'Neuer Benutzer' }).getByRole('button', { name: 'Benutzer anlegen' }).waitFor();
      await page.getByRole('table', { name: 'Personen' }).getByText('aktiviert', { exact: true }).waitFor();
      await expectWellLaidOut('users in German');
      await page.getByRole('button', { name: 'anna öffnen' }).click();
      const person = page.getByRole('region', { name: 'Benutzer anna' });
      await person.getByRole('heading', { name: 'Rollen und Gruppen' }).waitFor();
      await person.getByRole('button', { name: 'Rolle rechnungen:freigeben von anna entfernen' }).waitFor();
      await person.getByRole('button', { name: 'Passwort festlegen' }).waitFor();
      await person.getByRole('button', { name: 'TOTP einrichten' }).waitFor();
      await person.getByRole('button', { name: 'Deaktivieren' }).waitFor();
      await page.waitForURL(`${t.baseUrl}/admin/console#/realms/${realm}/users/anna`);
      await expectDates('de');
      await expectWellLaidOut('a person in German');

      // French on the person's page: the same page and URL, in French.
      await choose('fr', 'Rôles et groupes');
      await page.getByRole('region', { name: 'Utilisateur anna' }).getByRole('button', { name: 'Définir le mot de passe' }).waitFor();
      await expectDates('fr');
      await expectWellLaidOut('a person in French');
      await choose('de', 'Rollen und Gruppen');

      // The roles, the events, the keys.
      await openTab(realm, 'Rollen', 'roles');
      await page.getByRole('table', { name: 'Rollen' }).getByText('rechnungen:freigeben', { exact: true }).waitFor();
      await page.getByRole('form', { name: 'Rolle speichern' }).getByRole('button', { name: 'Rolle speichern' }).waitFor();
      await expectWellLaidOut('roles in German');
      await openTab(realm, 'Ereignisse', 'events');
      await page.getByRole('table', { name: 'Audit-Ereignisse' }).waitFor();
      await page.getByRole('button', { name: 'Ereignisse anzeigen' }).waitFor();
      await expectDates('de');
      await expectWellLaidOut('events in German');
      await openTab(realm, 'Signaturschlüssel', 'keys');
      await page.getByRole('table', { name: 'Signaturschlüssel' }).getByText('aktuell', { exact: true }).first().waitFor();
      await page.getByRole('button', { name: 'Schlüssel rotieren' }).waitFor();
      await expectWellLaidOut('keys in German');

      // A reload keeps the choice; English again, on the same tab.
      await page.reload();
      await page.getByRole('button', { name: 'Schlüssel rotieren' }).waitFor();
      await expect(lang()).resolves.toBe('de');
      await expect(picker().inputValue()).resolves.toBe('de');
      await choose('fr', 'Renouveler les clés');
      await expectWellLaidOut('keys in French');
      await choose('en', 'Rotate keys');
      // The tabs too (on the phone, in the closed menu that names the open one).
      await page.locator('nav a[aria-current=page]').filter({ hasText: /^Signing keys$/ }).first().waitFor({ state: 'attached' });
      await page.reload();
      await page.getByRole('button', { name: 'Rotate keys' }).waitFor();
      await expect(lang()).resolves.toBe('en');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    }, 120_000);
  }
});
