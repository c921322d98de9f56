import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce } from '../support/flow.js';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { measurePage } from './page-metrics.js';
import { type Problems, browserSkipReason, launchChromium, startsWith, watchedContext } from './support.js';

/**
 * The admin console's fields for languages and rich authorization requests in Chromium, at a
 * phone's and a desktop's width: a client's name in German (which a German consent page then
 * shows), a scope's description in French, the realm's authorization details types as a list
 * of types with their schemas (a schema that is not JSON refused beside the form, before it is
 * sent), and an initial access token limited to one of those types. Each step is checked through
 * the admin API (or the registration endpoint), and the page never scrolls sideways. A
 * resource's descriptions by language are kept when untouched and cleared once emptied.
 */
const skipReason = browserSkipReason('test/browser/admin-console-languages-rar.test.ts');

const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://ledger.example/callback';
const RESOURCE = 'https://payments.ledger.example';
const PAYMENT = 'payment_initiation';
const PAYMENT_SCHEMA = { type: 'object', properties: { amount: { type: 'string', title: 'Amount' } }, required: ['amount'] };

describe.skipIf(skipReason !== undefined)(`the admin console's language and RAR fields in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const admin = (path: string) => t.admin.request('GET', path).then((answer) => answer.json() as Record<string, unknown>);
  const said = (page: Page, text: string) => page.locator('#messages p').filter({ hasText: text }).first().waitFor();

  /** In each scheme, nothing wider than the window and every text at WCAG AA contrast, once the form's controls are enabled again (its call has ended). */
  async function expectWellLaidOut(page: Page, where: string): Promise<void> {
    await page.locator('main :disabled').first().waitFor({ state: 'detached' });
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const metrics = await measurePage(page);
      const at = `${where} at ${metrics.innerWidth} px, ${scheme}`;
      expect(metrics.innerWidth).toBe(page.viewportSize()!.width);
      expect(metrics.scrollWidth, `${at}: sideways scrolling`).toBeLessThanOrEqual(metrics.innerWidth);
      expect(metrics.overflowing, `${at}: boxes past the window`).toEqual([]);
      expect(metrics.unreadable, at).toEqual([]);
      expect(metrics.contrasts.filter((text) => text.ratio < text.required), `${at}: texts below WCAG AA`).toEqual([]);
    }
  }

  /** Opens the console in English at `width` px, signed in with the admin token. */
  async function openConsole(width: number): Promise<{ context: BrowserContext; page: Page; problems: Problems }> {
    const opened = await watchedContext(browser, { javaScriptEnabled: true, locale: 'en-US' });
    await opened.page.setViewportSize({ width, height: 900 });
    await opened.page.goto(`${t.baseUrl}/admin/console`);
    await opened.page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await opened.page.getByRole('button', { name: 'Open the console' }).click();
    await opened.page.getByRole('table', { name: 'Realms' }).waitFor();
    return opened;
  }

  const go = (page: Page, hash: string) => page.goto(`${t.baseUrl}/admin/console${hash}`);

  it.each([390, 1280])('names a client in German, describes a scope in French, defines a RAR type and limits a token to it at %i px', async (width) => {
    const realm = `lang-${width}`;
    const issuer = `${t.baseUrl}/oauth2/${realm}`;
    await t.admin.createRealm(realm);
    expect((await t.admin.request('POST', `/realms/${realm}/users`, { username: 'alice', password: PASSWORD })).statusCode).toBe(201);
    await t.admin.createClient(realm, { client_id: 'ledger', client_name: 'Ledger', client_type: 'public', redirect_uris: [REDIRECT], scope: 'openid profile' });
    const { context, page, problems } = await openConsole(width);
    try {
      // The client's name in German, on its own page; the admin API holds it; a German consent page shows it.
      await go(page, `#/realms/${realm}/clients/ledger`);
      const edit = page.getByRole('form', { name: 'Edit client ledger' });
      const names = edit.getByRole('group', { name: 'Name by language' });
      await expect(names.getByRole('textbox', { name: 'German', exact: true }).inputValue()).resolves.toBe('');
      await names.getByRole('textbox', { name: 'German', exact: true }).fill('Kassenbuch');
      await expectWellLaidOut(page, 'the client form');
      await edit.getByRole('button', { name: 'Save client' }).click();
      await said(page, 'Client ledger saved: client_names.');
      expect(await admin(`/realms/${realm}/clients/ledger`)).toMatchObject({ client_name: 'Ledger', client_names: { de: 'Kassenbuch' } });
      await go(page, `#/realms/${realm}/clients`);
      await page.getByRole('table', { name: 'Clients' }).waitFor();
      await go(page, `#/realms/${realm}/clients/ledger`);
      await expect(page.getByRole('form', { name: 'Edit client ledger' }).getByRole('group', { name: 'Name by language' }).getByRole('textbox', { name: 'German', exact: true }).inputValue()).resolves.toBe('Kassenbuch');
      // Saved again untouched: nothing is sent.
      await page.getByRole('form', { name: 'Edit client ledger' }).getByRole('button', { name: 'Save client' }).click();
      await said(page, 'Nothing changed.');

      const person = await watchedContext(browser, { javaScriptEnabled: true, locale: 'en-US' });
      await person.page.setViewportSize({ width, height: 900 });
      try {
        const query = new URLSearchParams({
          client_id: 'ledger',
          response_type: 'code',
          redirect_uri: REDIRECT,
          scope: 'openid profile',
          state: 'sprache',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          ui_locales: 'de',
        });
        await person.page.goto(`${issuer}/authorize?${query}`);
        await person.page.getByLabel('Benutzername').fill('alice');
        await person.page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
        await Promise.all([person.page.waitForURL(startsWith(`${issuer}/consent?`)), person.page.getByRole('button', { name: 'Anmelden' }).click()]);
        const consent = await person.page.locator('main').innerText();
        expect(consent).toContain('Kassenbuch');
        expect(consent).not.toContain('Ledger');
        expect(person.problems).toEqual({ console: [], pageErrors: [], violations: [] });
      } finally {
        await person.context.close();
      }

      // The German name emptied: the names are cleared.
      await go(page, `#/realms/${realm}/clients/ledger`);
      const again = page.getByRole('form', { name: 'Edit client ledger' });
      await again.getByRole('group', { name: 'Name by language' }).getByRole('textbox', { name: 'German', exact: true }).fill('');
      await again.getByRole('button', { name: 'Save client' }).click();
      await said(page, 'Client ledger saved: client_names.');
      expect(await admin(`/realms/${realm}/clients/ledger`)).not.toHaveProperty('client_names');

      // A scope's description in French.
      await go(page, `#/realms/${realm}/scopes`);
      const scopeForm = page.getByRole('form', { name: 'New scope' });
      await scopeForm.getByRole('textbox', { name: 'Scope name', exact: true }).fill('invoices');
      await scopeForm.getByRole('textbox', { name: /^Description\b/ }).fill('Read your invoices');
      await scopeForm.getByRole('group', { name: 'Description by language' }).getByRole('textbox', { name: 'French', exact: true }).fill('Lire vos factures');
      await expectWellLaidOut(page, 'the scope form');
      await scopeForm.getByRole('button', { name: 'Save scope' }).click();
      await said(page, 'Scope invoices saved.');
      const scopes = (await t.admin.request('GET', `/realms/${realm}/scopes`)).json() as Array<Record<string, unknown>>;
      expect(scopes.find((scope) => scope.name === 'invoices')).toMatchObject({ description: 'Read your invoices', descriptions: { fr: 'Lire vos factures' } });
      await go(page, `#/realms/${realm}/scopes/invoices`);
      await expect.poll(() => scopeForm.getByRole('group', { name: 'Description by language' }).getByRole('textbox', { name: 'French', exact: true }).inputValue()).toBe('Lire vos factures');

      // A resource's description in German, kept when the resource is saved without touching it, cleared once emptied.
      const resourceOf = async () =>
        ((await t.admin.request('GET', `/realms/${realm}/resources`)).json() as Array<Record<string, unknown>>).find((resource) => resource.identifier === RESOURCE);
      await go(page, `#/realms/${realm}/resources`);
      const resourceForm = page.getByRole('form', { name: 'Save a resource' });
      await resourceForm.getByRole('textbox', { name: /^Identifier/ }).fill(RESOURCE);
      await resourceForm.getByRole('textbox', { name: /^Name\b/ }).fill('Payments');
      const germanDescription = resourceForm.getByRole('group', { name: 'Description by language' }).getByRole('textbox', { name: 'German', exact: true });
      await germanDescription.fill('Zahlungen');
      await expectWellLaidOut(page, 'the resource form');
      await resourceForm.getByRole('button', { name: 'Save resource' }).click();
      await said(page, `Resource ${RESOURCE} saved.`);
      expect(await resourceOf()).toEqual({ identifier: RESOURCE, name: 'Payments', descriptions: { de: 'Zahlungen' } });
      await page.getByRole('button', { name: `Edit ${RESOURCE}`, exact: true }).click();
      await expect(germanDescription.inputValue()).resolves.toBe('Zahlungen');
      await resourceForm.getByRole('textbox', { name: /^Name\b/ }).fill('Payments API');
      await resourceForm.getByRole('button', { name: 'Save resource' }).click();
      await said(page, `Resource ${RESOURCE} saved.`);
      expect(await resourceOf()).toEqual({ identifier: RESOURCE, name: 'Payments API', descriptions: { de: 'Zahlungen' } });
      await page.getByRole('button', { name: `Edit ${RESOURCE}`, exact: true }).click();
      await germanDescription.fill('');
      await resourceForm.getByRole('button', { name: 'Save resource' }).click();
      await said(page, `Resource ${RESOURCE} saved.`);
      expect(await resourceOf()).toEqual({ identifier: RESOURCE, name: 'Payments API' });

      // A RAR type through its fields: a schema that is not JSON is refused beside the form, before it is sent.
      await go(page, `#/realms/${realm}/settings`);
      const settings = page.getByRole('form', { name: 'Realm settings' });
      const types = settings.getByRole('group', { name: 'Authorization details types' });
      await types.getByRole('button', { name: 'Add a type' }).click();
      const added = types.getByRole('group', { name: 'New type' });
      await added.getByRole('textbox', { name: /^Type name/ }).fill(PAYMENT);
      await added.getByRole('textbox', { name: /^Title/ }).fill('Payment');
      const schema = added.getByRole('textbox', { name: /^Schema \(JSON\)/ });
      await schema.fill('{"type": "object",');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.locator('.form-error').filter({ hasText: `Schema of ${PAYMENT}: not valid JSON` }).waitFor();
      await expect(schema.getAttribute('aria-invalid')).resolves.toBe('true');
      await expectWellLaidOut(page, 'the refused settings form');
      expect(((await admin(`/realms/${realm}`)).settings as Record<string, unknown>).authorization_details_types).toEqual({});

      // A schema the server refuses (an unknown type): its reason beside the form, nothing saved.
      await schema.fill('{"type": "objekt"}');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.locator('.form-error').filter({ hasText: /does not compile/ }).waitFor();
      await expect(settings.getAttribute('aria-describedby')).resolves.toBe(await settings.locator('.form-error').getAttribute('id'));
      expect(((await admin(`/realms/${realm}`)).settings as Record<string, unknown>).authorization_details_types).toEqual({});

      await schema.fill(JSON.stringify(PAYMENT_SCHEMA, null, 2));
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await said(page, 'Settings saved: authorization_details_types.');
      await expect(settings.locator('.form-error').count()).resolves.toBe(0);
      expect(((await admin(`/realms/${realm}`)).settings as Record<string, unknown>).authorization_details_types).toEqual({ [PAYMENT]: { ...PAYMENT_SCHEMA, title: 'Payment' } });

      // Drawn again, the type shows its fields; a type removed is removed from the setting.
      await page.reload();
      const shown = page.getByRole('form', { name: 'Realm settings' }).getByRole('group', { name: `Type ${PAYMENT}` });
      await expect(shown.getByRole('textbox', { name: /^Title/ }).inputValue()).resolves.toBe('Payment');
      expect(JSON.parse(await shown.getByRole('textbox', { name: /^Schema \(JSON\)/ }).inputValue())).toEqual(PAYMENT_SCHEMA);
      await expectWellLaidOut(page, 'the settings form');

      // A second type: a name listed twice is refused beside the form; once added, it can be removed again.
      const typesNow = page.getByRole('form', { name: 'Realm settings' }).getByRole('group', { name: 'Authorization details types' });
      await typesNow.getByRole('button', { name: 'Add a type' }).click();
      const second = typesNow.getByRole('group', { name: 'New type' });
      await second.getByRole('textbox', { name: /^Type name/ }).fill(PAYMENT);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('.form-error').filter({ hasText: `authorization_details_types: the type ${PAYMENT} is listed twice.` }).waitFor();
      await second.getByRole('textbox', { name: /^Type name/ }).fill('account_information');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await said(page, 'Settings saved: authorization_details_types.');
      const typesOf = async () => Object.keys(((await admin(`/realms/${realm}`)).settings as { authorization_details_types: object }).authorization_details_types).sort();
      expect(await typesOf()).toEqual(['account_information', PAYMENT]);
      await page.reload();
      await page.getByRole('button', { name: 'Remove the type account_information', exact: true }).click();
      await page.getByRole('group', { name: 'Type account_information' }).waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Save settings' }).click();
      await said(page, 'Settings saved: authorization_details_types.');
      expect(await typesOf()).toEqual([PAYMENT]);

      // An initial access token limited to that type: a registration may list it, one without it may not.
      await go(page, `#/realms/${realm}/initial-access-tokens`);
      const issue = page.getByRole('form', { name: 'New initial access token' });
      await issue.getByRole('group', { name: 'Authorization details types the registered client may use' }).getByRole('checkbox', { name: PAYMENT, exact: true }).check();
      await expectWellLaidOut(page, 'the initial access token form');
      await issue.getByRole('button', { name: 'Issue token' }).click();
      await said(page, 'An initial access token for one registration, valid');
      const token = (await page.getByRole('region', { name: 'Initial access token' }).locator('dd > code').first().textContent())!;
      const register = (bearer: string) =>
        fetch(`${issuer}/connect/register`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Payer', redirect_uris: [REDIRECT], authorization_details_types: [PAYMENT] }),
        });
      const unlimited = (await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, {})).json() as { token: string };
      const refused = await register(unlimited.token);
      expect(refused.status).toBe(400);
      await expect(refused.json()).resolves.toMatchObject({ error: 'invalid_client_metadata' });
      const registered = await register(token);
      expect(registered.status, await registered.clone().text()).toBe(201);
      await expect(registered.json()).resolves.toMatchObject({ authorization_details_types: [PAYMENT] });
      // The client may now ask for the type: ticked on its page, it is saved alone.
      await go(page, `#/realms/${realm}/clients/ledger`);
      const client = page.getByRole('form', { name: 'Edit client ledger' });
      await client.getByRole('group', { name: 'Authorization details it may ask for' }).getByRole('checkbox', { name: PAYMENT, exact: true }).check();
      await client.getByRole('button', { name: 'Save client' }).click();
      await said(page, 'Client ledger saved: authorization_details_types.');
      expect(await admin(`/realms/${realm}/clients/ledger`)).toMatchObject({ authorization_details_types: [PAYMENT] });

      // Chromium reports the refused save (400) as a console error: that one is provoked.
      expect({ ...problems, console: problems.console.filter((line) => !line.includes('status of 400')) }).toEqual({ console: [], pageErrors: [], violations: [] });
      expect(problems.console).toHaveLength(1);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('shows the forms in German when the console speaks German', async () => {
    const realm = 'sprachen';
    await t.admin.createRealm(realm);
    const { context, page, problems } = await openConsole(390);
    try {
      await page.evaluate("localStorage.setItem('realmgate.console.locale', 'de')");
      await go(page, `#/realms/${realm}/scopes`);
      await page.reload();
      const scopeForm = page.getByRole('form', { name: 'Neuer Scope' });
      // The reloaded page draws the view once its calls have ended: wait for the form before counting in it.
      await scopeForm.waitFor();
      await expect(scopeForm.getByRole('group', { name: 'Beschreibung nach Sprache' }).getByRole('textbox', { name: 'Französisch', exact: true }).count()).resolves.toBe(1);
      await go(page, `#/realms/${realm}/settings`);
      const settings = page.getByRole('form', { name: 'Realmeinstellungen' });
      await settings.getByRole('group', { name: 'Authorization-Details-Typen' }).getByRole('button', { name: 'Typ hinzufügen' }).waitFor();
      await expect(settings.getByRole('button', { name: 'Einstellungen speichern' }).count()).resolves.toBe(1);
      await expectWellLaidOut(page, 'the German settings form');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
