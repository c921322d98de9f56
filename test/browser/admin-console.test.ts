import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type Problems, browserSkipReason, launchChromium, signIn, startCallbackServer, watchedContext } from './support.js';

/**
 * The admin console (src/admin/console/) in a real Chromium against a listening server: the
 * token asked for and kept for the tab only; a realm, its settings, a scope, a confidential
 * client and a person made through the console; then a real sign-in with them (the code flow
 * with PKCE through the realm's pages) and the code exchanged with the secret the console
 * showed; a secret rotated; keys rotated; a journey stored and deleted; the audit events of all of it.
 */
const skipReason = browserSkipReason('test/browser/admin-console.test.ts');

const PASSWORD = 'correct horse battery';
const REALM = `shop-${randomBytes(3).toString('hex')}`;
const CLIENT_ID = 'shop-web';

/** Chromium reports each refused fetch as a console error: the refusals a test provokes are expected. */
const refusalsOnly = (problems: Problems, statuses: number[]) => ({
  ...problems,
  console: problems.console.filter((line) => !statuses.some((status) => line.includes(`status of ${status}`))),
});

describe.skipIf(skipReason !== undefined)(`the admin console in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  /** The admin's tab, kept from one test to the next as an admin would keep it. */
  let admin: { context: BrowserContext; page: Page; problems: Problems };
  let secret: string;
  let issuer: string;

  beforeAll(async () => {
    [callback, t, browser] = await Promise.all([startCallbackServer(), startTestApp({ listen: true }), launchChromium()]);
    issuer = `${t.baseUrl}/oauth2/${REALM}`;
    admin = await watchedContext(browser, { javaScriptEnabled: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => (callback ? callback.server.close(resolve) : resolve(undefined)));
  });

  const consoleUrl = () => `${t.baseUrl}/admin/console`;
  /** Waits for the message line to say `text` (exactly, or matching), and answers it. */
  async function said(page: Page, text: string | RegExp): Promise<Locator> {
    const line = page.locator('#messages p').filter({ hasText: typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : text });
    await line.waitFor();
    return line;
  }
  const form = (page: Page, name: string) => page.getByRole('form', { name });
  const tab = (page: Page, name: string) => page.getByRole('navigation', { name: 'Realm' }).getByRole('link', { name, exact: true });
  const tokenInput = (page: Page) => page.getByLabel('Admin token', { exact: true });
  const sessionStored = (page: Page) => page.evaluate(() => ({ ...(globalThis as unknown as { sessionStorage: Record<string, string> }).sessionStorage }));

  async function enterToken(page: Page, token: string): Promise<void> {
    await tokenInput(page).fill(token);
    await page.getByRole('button', { name: 'Open the console' }).click();
  }

  /** The values of a secret box the console shows, by their names. */
  async function secretShown(box: Locator): Promise<Record<string, string>> {
    await box.locator('dd').first().waitFor(); // shown once the API has answered
    const names = await box.locator('dt').allTextContents();
    const values = await box.locator('dd').allTextContents();
    return Object.fromEntries(names.map((name, index) => [name, values[index]!]));
  }

  /** The client authenticated at the introspection endpoint: 200 with its secret, 401 with a wrong one. */
  async function introspect(clientSecret: string, token = 'none') {
    const response = await fetch(`${issuer}/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('refuses a wrong token with a clear message, and keeps nothing', async () => {
    const { page, problems } = admin;
    await page.goto(consoleUrl());
    await expect(page.title()).resolves.toBe('Admin console · realmgate');
    await enterToken(page, 'not-the-admin-token');
    const refused = await said(page, /^This admin token was refused\. Check it/);
    expect(await refused.getAttribute('role')).toBe('alert');
    await tokenInput(page).waitFor();
    expect(await sessionStored(page)).toEqual({});
    expect(refusalsOnly(problems, [401])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('makes a realm, its settings, a scope, a confidential client and a person, with whom a code flow with PKCE succeeds', async () => {
    const { page, problems } = admin;
    await enterToken(page, ADMIN_TOKEN);
    await page.getByRole('table', { name: 'Realms' }).getByRole('link', { name: 'root', exact: true }).waitFor();

    // A realm, then its settings.
    await form(page, 'New realm').getByLabel('Realm name').fill(REALM);
    await Promise.all([page.waitForURL(`${consoleUrl()}#/realms/${REALM}/settings`), page.getByRole('button', { name: 'Create realm' }).click()]);
    const settings = form(page, 'Realm settings');
    await settings.getByText(issuer, { exact: true }).waitFor();
    await settings.getByLabel('access_token_lifetime', { exact: true }).fill('600');
    await settings.getByLabel('require_pkce', { exact: true }).check();
    await settings.getByLabel('rate_limit_par', { exact: false }).fill('');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'Settings saved: access_token_lifetime, require_pkce, rate_limit_par.');
    const stored = (await t.admin.request('GET', `/realms/${REALM}`)).json() as { settings: Record<string, unknown> };
    expect(stored.settings).toMatchObject({ access_token_lifetime: 600, require_pkce: true, rate_limit_par: null, code_lifetime: 120 });

    // A scope.
    await tab(page, 'Scopes').click();
    await form(page, 'New scope').getByLabel('Scope name').fill('orders:read');
    await form(page, 'New scope').getByLabel('Description').fill('Read your orders');
    await form(page, 'New scope').getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Scope orders:read saved.');
    await page.getByRole('table', { name: 'Scopes' }).getByRole('row', { name: /orders:read Read your orders/ }).waitFor();

    // A confidential client: its secret shown once.
    await tab(page, 'Clients').click();
    const create = form(page, 'New client');
    await create.getByLabel('Client ID').fill(CLIENT_ID);
    await create.getByLabel('Name', { exact: true }).fill('Shop Web');
    await create.getByLabel('Type').selectOption('confidential');
    await create.getByLabel('Redirect URIs').fill(callback.redirectUri);
    await create.getByLabel('Refresh token').check();
    await create.getByLabel('Scope').fill('openid profile orders:read');
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, `Client ${CLIENT_ID} created.`);
    const secretBox = page.getByRole('region', { name: `Client secret of ${CLIENT_ID}` });
    const shown = await secretShown(secretBox);
    expect(shown).toEqual({ client_id: CLIENT_ID, client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    secret = shown.client_secret!;
    await expect(secretBox.textContent()).resolves.toContain('Shown only this once');
    const row = page.getByRole('table', { name: 'Clients' }).getByRole('row', { name: new RegExp(`^${CLIENT_ID} Shop Web confidential client_secret_basic`) });
    await expect(row.textContent()).resolves.toContain('authorization_code, refresh_token');
    await expect(page.getByRole('table', { name: 'Clients' }).textContent()).resolves.not.toContain(secret);

    // A person with a password and a TOTP enrolment.
    await tab(page, 'Users').click();
    const newUser = form(page, 'New user');
    await newUser.getByLabel('New username').fill('alice');
    await newUser.getByLabel(/^Password/).fill(PASSWORD);
    await newUser.getByLabel('Claims').fill('{"name": "Alice Example"}');
    await newUser.getByRole('button', { name: 'Create user' }).click();
    await said(page, 'User alice created.');
    const card = page.getByRole('region', { name: 'User alice' });
    const sub = (await card.locator('dd code').first().textContent())!;
    expect(sub).toMatch(/^[0-9a-f-]{36}$/);
    await card.getByRole('button', { name: 'Enrol TOTP' }).click();
    const totp = await secretShown(page.getByRole('region', { name: 'TOTP of alice' }));
    expect(totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    const otpauth = new URL(totp['otpauth URI']!);
    expect(otpauth.protocol).toBe('otpauth:');
    expect(otpauth.searchParams.get('secret')).toBe(totp.secret);

    // The person signs in at the realm in a browser of their own, and the client exchanges the code with the secret shown.
    const person = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: CLIENT_ID,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile orders:read',
        state: 'console-state',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await person.page.goto(`${issuer}/authorize?${query}`);
      expect(person.page.url()).toMatch(new RegExp(`^${issuer}/login\\?`));
      await signIn(person.page, 'alice', PASSWORD, new RegExp(`^${issuer}/consent\\?`));
      await expect(person.page.locator('main').innerText()).resolves.toContain('Read your orders');
      const atCallback = (url: URL) => `${url.origin}${url.pathname}` === callback.redirectUri;
      await Promise.all([person.page.waitForURL(atCallback), person.page.locator('button[name=decision][value=allow]').click()]);
      const redirect = new URL(person.page.url());
      expect(redirect.searchParams.get('state')).toBe('console-state');
      expect(redirect.searchParams.get('iss')).toBe(issuer);
      const code = redirect.searchParams.get('code')!;
      expect(person.problems).toEqual({ console: [], pageErrors: [], violations: [] });

      const response = await fetch(`${issuer}/access_token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, code_verifier: verifier }),
      });
      const tokens = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(tokens)).toBe(200);
      // The lifetime set in the console's settings form.
      expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 600 });
      const introspected = await introspect(secret, tokens.access_token as string);
      expect(introspected.body).toMatchObject({ active: true, sub, client_id: CLIENT_ID, scope: 'openid profile orders:read' });
    } finally {
      await person.context.close();
    }
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 30_000);

  it('rotates the secret: the new one shown once, the old one refused', async () => {
    const { page, problems } = admin;
    await tab(page, 'Clients').click();
    await page.getByRole('button', { name: `Rotate the secret of ${CLIENT_ID}` }).click();
    await said(page, `A new secret for ${CLIENT_ID}: the old one no longer works.`);
    const rotated = (await secretShown(page.getByRole('region', { name: `Client secret of ${CLIENT_ID}` }))).client_secret!;
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(secret);
    expect((await introspect(rotated)).status).toBe(200);
    expect((await introspect(secret)).status).toBe(401);

    // Once: closed, or left and come back to, it is gone from the page.
    await page.getByRole('region', { name: `Client secret of ${CLIENT_ID}` }).getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('body').textContent()).not.toContain(rotated);
    await page.getByRole('region', { name: `Client secret of ${CLIENT_ID}` }).waitFor({ state: 'detached' });
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  });

  it('edits a client, rotates the signing keys, and deletes a scope (refusing a built-in one with the reason)', async () => {
    const { page, problems } = admin;
    await page.getByRole('button', { name: `Edit ${CLIENT_ID}` }).click();
    const edit = form(page, `Edit client ${CLIENT_ID}`);
    await edit.getByLabel('Name', { exact: true }).fill('Shop');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, `Client ${CLIENT_ID} saved: client_name.`);
    expect(((await t.admin.request('GET', `/realms/${REALM}/clients/${CLIENT_ID}`)).json() as { client_name: string }).client_name).toBe('Shop');

    await tab(page, 'Signing keys').click();
    const keys = page.getByRole('table', { name: 'Signing keys' });
    await keys.waitFor();
    const before = await keys.locator('tbody tr td:first-child').allTextContents();
    expect(before).toHaveLength(2);
    await page.getByRole('button', { name: 'Rotate keys' }).click();
    await said(page, /^New signing keys: /);
    await keys.locator('tbody tr').nth(3).waitFor();
    const current = await keys.getByRole('row', { name: /current$/ }).locator('td:first-child').allTextContents();
    expect(current).toHaveLength(2);
    expect(current.some((kid) => before.includes(kid))).toBe(false);

    await tab(page, 'Scopes').click();
    await form(page, 'New scope').getByLabel('Scope name').fill('temporary');
    await form(page, 'New scope').getByLabel('Description').fill('Soon gone');
    await form(page, 'New scope').getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Scope temporary saved.');
    await page.getByRole('button', { name: 'Delete temporary' }).click();
    await said(page, 'Scope temporary deleted.');
    await page.getByRole('button', { name: 'Delete temporary' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete openid' }).click();
    await said(page, 'openid exists in every realm and cannot be deleted');
    expect(refusalsOnly(problems, [409])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('stores a journey from its JSON and lists its nodes, shows why one is refused, maps an acr to it, and deletes it once nothing names it', async () => {
    const { page, problems } = admin;
    await tab(page, 'Journeys').click();
    const cells = (name: string) =>
      page.getByRole('table', { name: `Nodes of ${name}` }).locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from((row as unknown as { cells: ArrayLike<{ textContent: string }> }).cells, (cell) => cell.textContent)));
    await page.getByRole('region', { name: 'Journey default' }).waitFor();
    expect(await cells('default')).toEqual([['password', 'password', 'success → done']]);

    const store = form(page, 'Store a journey');
    const journey = {
      start: 'pw',
      nodes: { pw: { type: 'password', next: { success: 'risk' } }, risk: { type: 'risk', next: { low: 'done', high: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
    };
    await store.getByLabel('Journey name').fill('strong');
    await store.getByLabel('Journey JSON').fill(JSON.stringify(journey));
    await store.getByRole('button', { name: 'Save journey' }).click();
    await said(page, 'Journey strong saved.');
    await page.getByRole('region', { name: 'Journey strong' }).waitFor();
    // In the order a person meets them, each outcome with where it leads.
    expect(await cells('strong')).toEqual([
      ['pw', 'password', 'success → risk'],
      ['risk', 'risk', 'low → done\nhigh → otp'],
      ['otp', 'otp', 'success → done'],
    ]);
    expect((await t.admin.request('GET', `/realms/${REALM}/journeys/strong`)).json()).toEqual(journey);

    // Refusals, the server's naming the node.
    await store.getByLabel('Journey JSON').fill(JSON.stringify({ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'nowhere' } } } }));
    await store.getByRole('button', { name: 'Save journey' }).click();
    expect(await (await said(page, 'node "pw": outcome "success" leads to "nowhere", which is no node')).getAttribute('role')).toBe('alert');
    await store.getByLabel('Journey JSON').fill('{"start": ');
    await store.getByRole('button', { name: 'Save journey' }).click();
    await said(page, /^The journey is not valid JSON: /);
    expect(await cells('strong')).toHaveLength(3);

    // Edit fills the editor with the journey as stored.
    await page.getByRole('button', { name: 'Edit strong' }).click();
    await expect(store.getByLabel('Journey name').inputValue()).resolves.toBe('strong');
    expect(JSON.parse(await store.getByLabel('Journey JSON').inputValue())).toEqual(journey);

    // The realm's acr_journeys, a JSON object among the settings, may name it, and only journeys the realm has.
    await tab(page, 'Settings').click();
    const acrJourneys = form(page, 'Realm settings').getByLabel('acr_journeys', { exact: false });
    await expect(acrJourneys.inputValue()).resolves.toBe('{}');
    await acrJourneys.fill('{"gold": "missing"}');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'settings.acr_journeys: "gold" names the journey "missing", which the realm does not have');
    await acrJourneys.fill('{"gold": "strong"}');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'Settings saved: acr_journeys.');

    // A journey a client or the mapping names stays, and the console says why.
    expect((await t.admin.request('PATCH', `/realms/${REALM}/clients/${CLIENT_ID}`, { journey: 'strong' })).statusCode).toBe(200);
    await tab(page, 'Journeys').click();
    await page.getByRole('button', { name: 'Delete strong' }).click();
    await said(page, `the journey "strong" is the journey of clients ${CLIENT_ID}, and the journey of acr values gold in the realm's acr_journeys: change them first`);
    expect((await t.admin.request('PATCH', `/realms/${REALM}/clients/${CLIENT_ID}`, { journey: null })).statusCode).toBe(200);
    expect((await t.admin.request('PATCH', `/realms/${REALM}`, { settings: { acr_journeys: {} } })).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Delete strong' }).click();
    await said(page, 'Journey strong deleted.');
    await page.getByRole('region', { name: 'Journey strong' }).waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/journeys/strong`)).statusCode).toBe(404);
    expect(refusalsOnly(problems, [400, 409])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('lists the creations and the sign-in among the audit events, and filters them by type', async () => {
    const { page, problems } = admin;
    await tab(page, 'Events').click();
    const events = page.getByRole('table', { name: 'Audit events' });
    await events.waitFor();
    const types = await events.locator('tbody tr td:nth-child(2)').allTextContents();
    for (const type of ['realm.created', 'realm.updated', 'scope.saved', 'client.created', 'user.created', 'user.totp_enrolled', 'sign_in.succeeded', 'consent.granted', 'token.issued', 'client.secret_rotated', 'keys.rotated', 'scope.deleted', 'journey.saved', 'journey.deleted']) {
      expect(types, type).toContain(type);
    }
    const filters = form(page, 'Event filters');
    await filters.getByLabel('Types').fill('client.created, user.created');
    await filters.getByRole('button', { name: 'Show events' }).click();
    await expect.poll(() => events.locator('tbody tr').count()).toBe(2);
    const rows = await events.locator('tbody tr').allTextContents();
    expect(rows.find((text) => text.includes('client.created'))).toContain(CLIENT_ID);
    expect(rows.find((text) => text.includes('user.created'))).toContain('"username":"alice"');
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  });

  it('keeps the token for this tab only: sessionStorage, never localStorage or a cookie; another tab asks again', async () => {
    const { context, page } = admin;
    expect(await sessionStored(page)).toEqual({ 'realmgate.admin_token': ADMIN_TOKEN });
    expect(await page.evaluate(() => (globalThis as unknown as { localStorage: { length: number } }).localStorage.length)).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    expect(await context.cookies()).toEqual([]);

    // A reload of the same tab keeps it.
    await page.reload();
    await page.getByRole('table', { name: 'Audit events' }).waitFor();

    // A new tab, and a new browser, ask for it.
    const other = await context.newPage();
    const elsewhere = await browser.newContext();
    try {
      for (const fresh of [other, await elsewhere.newPage()]) {
        await fresh.goto(`${consoleUrl()}#/realms/${REALM}/clients`);
        await tokenInput(fresh).waitFor();
        expect(await fresh.getByRole('table').count()).toBe(0);
        expect(await sessionStored(fresh)).toEqual({});
      }
    } finally {
      await other.close();
      await elsewhere.close();
    }

    // Forgetting it asks again, here too.
    await page.getByRole('button', { name: 'Forget the token' }).click();
    await tokenInput(page).waitFor();
    expect(await sessionStored(page)).toEqual({});
  });
});
