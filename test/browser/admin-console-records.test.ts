import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { type Problems, browserSkipReason, launchChromium, watchedContext } from './support.js';

/**
 * The admin console's records in Chromium: a client's CIBA fields (token delivery mode and
 * client notification endpoint) set through the new-client and edit-client forms and sent only
 * when changed; the snippets shown after a client is made, with its values filled in and a
 * Copy button each; one URL per client and per person (deep links, back and forward); times in
 * the browser's zone and the console's language (English, chosen in a German browser).
 */
const skipReason = browserSkipReason('test/browser/admin-console-records.test.ts');

const REALM = 'bank';
const RESOURCE = 'https://payments.bank.example';
const REDIRECT = 'https://app.bank.example/callback';
const ZONE = 'Asia/Kolkata';
const LOCALE = 'de-DE';
/** The language chosen in the console's picker, in place of the browser's. */
const CONSOLE_LANGUAGE = 'en';

describe.skipIf(skipReason !== undefined)(`the admin console's records in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: { context: BrowserContext; page: Page; problems: Problems };
  let issuer: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    issuer = `${t.baseUrl}/oauth2/${REALM}`;
    await t.admin.createRealm(REALM);
    expect((await t.admin.request('PUT', `/realms/${REALM}/resources`, { identifier: RESOURCE, name: 'Payments' })).statusCode).toBe(201);
    expect((await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'alice', password: 'correct horse battery' })).statusCode).toBe(201);
    admin = await watchedContext(browser, { javaScriptEnabled: true, locale: LOCALE, timezoneId: ZONE });
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const { page } = admin;
    await page.goto(`${t.baseUrl}/admin/console#/realms/${REALM}/clients`);
    // The console starts in the browser's German; English is chosen, and kept for the page's reloads.
    await page.getByLabel('Admin-Token', { exact: true }).waitFor();
    await page.locator('select[name=locale]').selectOption(CONSOLE_LANGUAGE);
    await page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('form', { name: 'New client' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const said = (page: Page, text: string | RegExp) =>
    page.locator('#messages p').filter({ hasText: typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : text }).waitFor();
  const clientOf = async (clientId: string) => (await t.admin.request('GET', `/realms/${REALM}/clients/${clientId}`)).json() as Record<string, unknown>;
  const consoleUrl = (hash: string) => `${t.baseUrl}/admin/console${hash}`;
  /** Chromium reports each refused fetch as a console error: those a test provokes are expected. */
  const unexpected = (problems: Problems, statuses: number[]) => ({
    ...problems,
    console: problems.console.filter((line) => !statuses.some((status) => line.includes(`status of ${status}`))),
  });
  /** What the page's clipboard holds (the script as text: the test's own types know no clipboard). */
  const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;
  /** The text of a snippet, and what its Copy button put on the clipboard. */
  async function snippet(region: Locator, title: string, what: string): Promise<string> {
    const block = region.getByRole('region', { name: title });
    const text = (await block.locator('pre').textContent())!;
    await block.getByRole('button', { name: `Copy ${what}`, exact: true }).click();
    await expect.poll(() => clipboard(region.page())).toBe(text);
    return text;
  }

  it("sets a client's CIBA delivery mode and notification endpoint by the server's rules, then shows snippets with its values", async () => {
    const { page, problems } = admin;
    const create = page.getByRole('form', { name: 'New client' });
    // The ID-JAG rows' "Client ID there" also begins with "Client ID": the field is named to the end of its label.
    await create.getByRole('textbox', { name: /^Client ID(?! there)/ }).fill('teller');
    await create.getByRole('textbox', { name: /^Redirect URIs/ }).fill(REDIRECT);
    await create.getByRole('checkbox', { name: 'Client credentials', exact: true }).check();
    await create.getByRole('textbox', { name: /^Scope\b/ }).fill('openid');
    const mode = create.getByRole('combobox', { name: /^Token delivery mode/ });
    await expect(mode.inputValue()).resolves.toBe('poll');
    await mode.selectOption('push');
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, /^backchannel_client_notification_endpoint: push mode needs it/);
    expect((await t.admin.request('GET', `/realms/${REALM}/clients/teller`)).statusCode).toBe(404);
    await create.getByRole('textbox', { name: /^Client notification endpoint/ }).fill('https://bank.example/ciba');
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, 'Client teller created.');
    expect(await clientOf('teller')).toMatchObject({ backchannel_token_delivery_mode: 'push', backchannel_client_notification_endpoint: 'https://bank.example/ciba' });

    // The secret once, with a Copy button; the snippets read it from CLIENT_SECRET and never hold it.
    const secretBox = page.getByRole('region', { name: 'Client secret of teller' });
    const secret = (await secretBox.locator('dd > code').last().textContent())!;
    await secretBox.getByRole('button', { name: 'Copy client_secret', exact: true }).click();
    await expect.poll(() => clipboard(page)).toBe(secret);
    const connect = page.getByRole('region', { name: 'Connect teller' });
    const openidClient = await snippet(connect, 'openid-client (the application)', 'the openid-client snippet');
    expect(openidClient).toContain(`oidc.discovery(new URL(${JSON.stringify(issuer)}), "teller", process.env.CLIENT_SECRET)`);
    expect(openidClient).toContain(`redirect_uri: ${JSON.stringify(REDIRECT)}`);
    expect(openidClient).toContain('oidc.clientCredentialsGrant(config, { scope: "openid" })');
    const api = await snippet(connect, 'realmgate/resource-server (its API)', 'the resource-server snippet');
    expect(api).toContain(`issuer: ${JSON.stringify(issuer)},`);
    expect(api).toContain(`resource: ${JSON.stringify(RESOURCE)},`);
    const curl = await snippet(connect, 'curl', 'the curl snippet');
    expect(curl).toContain(`curl '${issuer}/.well-known/openid-configuration'`);
    expect(curl).toContain(`curl -u 'teller:'"$CLIENT_SECRET" -d grant_type=client_credentials -d 'scope=openid' '${issuer}/access_token'`);
    for (const text of [openidClient, api, curl]) expect(text).not.toContain(secret);

    // The snippet's curl, run as written with the secret set, is answered with a token.
    const token = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`teller:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
    });
    expect(token.status).toBe(200);

    // Opened by its link: its own URL; back to poll, the endpoint emptied: both sent, the endpoint cleared.
    await page.getByRole('table', { name: 'Clients' }).getByRole('link', { name: 'teller', exact: true }).click();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/clients/teller`));
    const edit = page.getByRole('form', { name: 'Edit client teller' });
    await expect(edit.getByRole('combobox', { name: /^Token delivery mode/ }).inputValue()).resolves.toBe('push');
    await expect(edit.getByRole('textbox', { name: /^Client notification endpoint/ }).inputValue()).resolves.toBe('https://bank.example/ciba');
    await edit.getByRole('combobox', { name: /^Token delivery mode/ }).selectOption('poll');
    await edit.getByRole('textbox', { name: /^Client notification endpoint/ }).fill('');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Client teller saved: backchannel_token_delivery_mode, backchannel_client_notification_endpoint.');
    expect(page.url()).toBe(consoleUrl(`#/realms/${REALM}/clients`));
    const polled = await clientOf('teller');
    expect(polled).toMatchObject({ backchannel_token_delivery_mode: 'poll' });
    expect(polled).not.toHaveProperty('backchannel_client_notification_endpoint');

    // A client saved without touching them is saved without them.
    await page.getByRole('button', { name: 'Edit teller', exact: true }).click();
    await edit.getByRole('textbox', { name: 'Name', exact: true }).fill('Teller');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Client teller saved: client_name.');
    expect(unexpected(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 60_000);

  it('gives each client, person and scope a URL of their own: deep links open them, back and forward move between them', async () => {
    const { page, problems } = admin;
    // A deep link in a fresh load.
    await page.goto(consoleUrl(`#/realms/${REALM}/clients/teller`));
    const edit = page.getByRole('form', { name: 'Edit client teller' });
    await edit.waitFor();
    await edit.getByRole('button', { name: 'Copy the client ID', exact: true }).click();
    await expect.poll(() => clipboard(page)).toBe('teller');

    // Cancel goes back to the list's URL; back opens the client again, forward closes it.
    await edit.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(page.url()).toBe(consoleUrl(`#/realms/${REALM}/clients`));
    await edit.waitFor({ state: 'detached' });
    await page.goBack();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/clients/teller`));
    await edit.waitFor();
    await page.goForward();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/clients`));
    await edit.waitFor({ state: 'detached' });

    // From the client to a person by their deep link, and back to the client.
    await page.goto(consoleUrl(`#/realms/${REALM}/users/alice`));
    const person = page.getByRole('region', { name: 'User alice' });
    await person.waitFor();
    const sub = ((await t.admin.request('GET', `/realms/${REALM}/users/alice`)).json() as { sub: string }).sub;
    await person.getByRole('button', { name: 'Copy the sub', exact: true }).click();
    await expect.poll(() => clipboard(page)).toBe(sub);
    await page.goBack();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/clients`));
    await page.getByRole('form', { name: 'New client' }).waitFor();
    await page.goForward();
    await person.waitFor();

    // A scope by its deep link: the form filled with it; back to the list.
    await page.goto(consoleUrl(`#/realms/${REALM}/scopes/openid`));
    const scopeForm = page.getByRole('form', { name: 'New scope' });
    await expect.poll(() => scopeForm.getByLabel('Scope name').inputValue()).toBe('openid');
    await page.getByRole('table', { name: 'Scopes' }).getByRole('link', { name: 'email', exact: true }).click();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/scopes/email`));
    await expect.poll(() => scopeForm.getByLabel('Scope name').inputValue()).toBe('email');
    await page.goBack();
    await page.waitForURL(consoleUrl(`#/realms/${REALM}/scopes/openid`));
    await expect.poll(() => scopeForm.getByLabel('Scope name').inputValue()).toBe('openid');

    // A client the realm does not have: said plainly, the list still there.
    await page.goto(consoleUrl(`#/realms/${REALM}/clients/nobody`));
    await page.locator('#messages p[role=alert]').waitFor();
    await page.getByRole('table', { name: 'Clients' }).waitFor();
    expect(unexpected(problems, [404])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 60_000);

  it("shows times in the browser's zone and the console's language, the exact instant in UTC kept beside", async () => {
    const { page, problems } = admin;
    const created = ((await t.admin.request('GET', `/realms/${REALM}/users/alice`)).json() as { created_at: string }).created_at;
    await page.goto(consoleUrl(`#/realms/${REALM}/users/alice`));
    const shown = page.getByRole('region', { name: 'User alice' }).locator(`time[datetime="${created}"]`).first();
    await shown.waitFor();
    const local = new Intl.DateTimeFormat(CONSOLE_LANGUAGE, { dateStyle: 'medium', timeStyle: 'short', timeZone: ZONE }).format(new Date(created));
    await expect(shown.textContent()).resolves.toBe(local);
    await expect(shown.getAttribute('title')).resolves.toBe(created);
    // The events too.
    await page.goto(consoleUrl(`#/realms/${REALM}/events`));
    const times = page.locator('table time');
    await times.first().waitFor();
    for (const time of await times.all()) {
      const instant = (await time.getAttribute('datetime'))!;
      const text = await time.textContent();
      expect(text).toBe(new Intl.DateTimeFormat(CONSOLE_LANGUAGE, { dateStyle: 'medium', timeStyle: 'short', timeZone: ZONE }).format(new Date(instant)));
    }
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);
});
