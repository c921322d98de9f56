import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type Problems, browserSkipReason, launchChromium, signIn, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * The admin console (src/admin/console/) in a real Chromium against a listening server: the
 * token asked for and kept for the tab only; a realm, its settings, a scope, a confidential
 * client and a person made through the console; then a real sign-in with them (the code flow
 * with PKCE through the realm's pages) and the code exchanged with the secret the console
 * showed; a secret rotated; keys rotated; a journey stored and deleted; an identity provider
 * made (a person signing in through it), changed and deleted; a trusted issuer and an initial
 * access token; a client's other fields, a person's claims; a client, a person and a realm
 * deleted, each delete asked first; roles, groups and a person's memberships, the people
 * listed and searched, sessions ended, a person disabled, a scope's claims, a realm exported
 * and imported as another; the audit events of all of it. And the fields of CONTRACT.md §12 and
 * §15 (a realm's transaction tokens, a client's logout, signed-response and delegation fields,
 * a trusted issuer's ID-JAG fields) set through their forms and read back through the admin API.
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
    // The upstream provider of the identity provider test is another realm of this server, reached over loopback.
    [callback, t, browser] = await Promise.all([startCallbackServer(), startTestApp({ listen: true, outboundAllow: ['127.0.0.1'] }), launchChromium()]);
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
    const values = await box.locator('dd > code').allTextContents();
    return Object.fromEntries(names.map((name, index) => [name, values[index]!]));
  }

  /**
   * Clicks "Delete {name}" and answers the dialog that asks first: its Cancel has the focus
   * (Enter or Escape deletes nothing), and the page behind it is inert until it is answered.
   */
  async function answerDelete(page: Page, name: string, answer: 'Delete' | 'Cancel' | 'Escape', question?: string): Promise<void> {
    await page.getByRole('button', { name: `Delete ${name}`, exact: true }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    if (question !== undefined) await expect(dialog.getAttribute('aria-label')).resolves.toBe(question);
    const cancel = dialog.getByRole('button', { name: 'Cancel', exact: true });
    expect(await cancel.evaluate((button) => button === (button.ownerDocument as unknown as { activeElement: unknown }).activeElement)).toBe(true);
    if (answer === 'Escape') await page.keyboard.press('Escape');
    else await dialog.getByRole('button', { name: answer, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
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
    await settings.getByLabel(/^Access token lifetime/).fill('600');
    await settings.getByLabel(/^Require PKCE/).check();
    await settings.getByLabel(/^Pushed requests per minute/).fill('');
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
    await newUser.getByLabel('Full name').fill('Alice Example');
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
    // Escape, like Cancel, deletes nothing.
    await answerDelete(page, 'temporary', 'Escape', 'Delete the scope temporary? Clients that list it must let go of it first.');
    expect((await t.admin.request('GET', `/realms/${REALM}/scopes/temporary`)).statusCode).toBe(200);
    // Edit fills the form: a new description for the same scope.
    await page.getByRole('button', { name: 'Edit temporary', exact: true }).click();
    await expect(form(page, 'New scope').getByLabel('Scope name').inputValue()).resolves.toBe('temporary');
    await form(page, 'New scope').getByLabel('Description').fill('Soon gone, really');
    await form(page, 'New scope').getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Scope temporary saved.');
    await page.getByRole('table', { name: 'Scopes' }).getByRole('row', { name: /temporary Soon gone, really/ }).waitFor();
    await answerDelete(page, 'temporary', 'Delete');
    await said(page, 'Scope temporary deleted.');
    await page.getByRole('button', { name: 'Delete temporary' }).waitFor({ state: 'detached' });
    await answerDelete(page, 'openid', 'Delete');
    await said(page, 'openid exists in every realm and cannot be deleted');
    expect(refusalsOnly(problems, [409])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('stores a journey from its JSON and lists its nodes, shows why one is refused, maps an acr to it, and deletes it once nothing names it', async () => {
    const { page, problems } = admin;
    await tab(page, 'Journeys').click();
    const cells = (name: string, table = `Nodes of ${name}`) =>
      page.getByRole('table', { name: table }).locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from((row as unknown as { cells: ArrayLike<{ textContent: string }> }).cells, (cell) => cell.textContent)));
    await page.getByRole('region', { name: 'Journey default' }).waitFor();
    expect(await cells('default')).toEqual([['password', 'password', 'success → done']]);

    const store = form(page, 'Store a journey');
    const journey = {
      start: 'pw',
      nodes: { pw: { type: 'password', next: { success: 'risk' } }, risk: { type: 'risk', next: { low: 'done', high: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
    };
    const cards = () => store.locator('.journey-node h4 code').allTextContents();
    const leadsTo = (node: string, outcome: string) => store.getByRole('region', { name: `Node ${node}`, exact: true }).getByRole('combobox', { name: new RegExp(`^"${outcome}" leads to`) });
    const problem = store.locator('p.journey-problem').last();
    await store.getByLabel('Journey name').fill('strong');
    await store.locator('summary', { hasText: 'JSON (advanced)' }).click();
    await store.getByLabel(/^Journey JSON/).fill(JSON.stringify(journey));
    // Drawn as it is typed, before it is saved: the cards in walk order, each outcome with where it leads.
    await expect.poll(cards).toEqual(['pw', 'risk', 'otp']);
    expect([await leadsTo('pw', 'success').inputValue(), await leadsTo('risk', 'low').inputValue(), await leadsTo('risk', 'high').inputValue(), await leadsTo('otp', 'success').inputValue()]).toEqual(['risk', 'done', 'otp', 'done']);
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

    // Refusals: an outcome leading to no node is caught before sending; the server's names the node.
    await store.getByLabel(/^Journey JSON/).fill(JSON.stringify({ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'nowhere' } } } }));
    await expect(leadsTo('pw', 'success').inputValue()).resolves.toBe('nowhere');
    await store.getByRole('region', { name: 'Node pw', exact: true }).getByText('It names no node: choose where it leads.').waitFor();
    await store.getByRole('button', { name: 'Save journey' }).click();
    await expect.poll(() => problem.textContent()).toBe('Node "pw": choose where "success" leads before saving.');
    await store.getByLabel(/^Journey JSON/).fill(JSON.stringify({ start: 'otp', nodes: { otp: { type: 'otp', next: { success: 'done' } } } }));
    await store.getByRole('button', { name: 'Save journey' }).click();
    await expect.poll(() => problem.textContent()).toBe('The server refused the journey: node "otp": it can be reached before a password or passkey node has told who signs in');
    expect(await problem.getAttribute('role')).toBe('alert');
    await store.getByLabel(/^Journey JSON/).fill('{"start": ');
    await expect.poll(() => store.locator('p.json-problem').textContent()).toMatch(/^The fields are unchanged: The journey is not valid JSON: /);
    await store.getByRole('button', { name: 'Save journey' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/^The JSON \(advanced\) has a mistake: The journey is not valid JSON: /);
    expect(await cells('strong')).toHaveLength(3);
    expect((await t.admin.request('GET', `/realms/${REALM}/journeys/strong`)).json()).toEqual(journey);

    // Edit fills the editor with the journey as stored.
    await page.getByRole('button', { name: 'Edit strong' }).click();
    await expect(store.getByLabel('Journey name').inputValue()).resolves.toBe('strong');
    expect(JSON.parse(await store.getByLabel(/^Journey JSON/).inputValue())).toEqual(journey);
    expect(await cards()).toEqual(['pw', 'risk', 'otp']);

    // The realm's acr_journeys, rows of an acr value and a journey among the settings, may name it, and only journeys the realm has.
    await tab(page, 'Settings').click();
    const acrJourneys = form(page, 'Realm settings').getByRole('group', { name: 'Journeys by acr value' });
    // The settings form is drawn once the realm and its journeys have been read.
    await expect.poll(() => acrJourneys.locator('datalist option').evaluateAll((options) => options.map((option) => option.getAttribute('value')))).toContain('strong');
    expect(await acrJourneys.getByRole('group').count()).toBe(0);
    await acrJourneys.getByRole('button', { name: 'Add an acr value' }).click();
    const gold = acrJourneys.getByRole('group', { name: 'acr value 1', exact: true });
    await gold.getByRole('textbox', { name: 'acr value', exact: true }).fill('gold');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'acr value 1: give both the acr value and its journey.');
    await gold.getByRole('combobox', { name: 'Journey', exact: true }).fill('missing');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'settings.acr_journeys: "gold" names the journey "missing", which the realm does not have');
    await gold.getByRole('combobox', { name: 'Journey', exact: true }).fill('strong');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await said(page, 'Settings saved: acr_journeys.');
    expect(((await t.admin.request('GET', `/realms/${REALM}`)).json() as { settings: Record<string, unknown> }).settings.acr_journeys).toEqual({ gold: 'strong' });

    // A journey a client or the mapping names stays, and the console says why.
    expect((await t.admin.request('PATCH', `/realms/${REALM}/clients/${CLIENT_ID}`, { journey: 'strong' })).statusCode).toBe(200);
    await tab(page, 'Journeys').click();
    await answerDelete(page, 'strong', 'Delete');
    await said(page, `the journey "strong" is the journey of clients ${CLIENT_ID}, and the journey of acr values gold in the realm's acr_journeys: change them first`);
    expect((await t.admin.request('PATCH', `/realms/${REALM}/clients/${CLIENT_ID}`, { journey: null })).statusCode).toBe(200);
    expect((await t.admin.request('PATCH', `/realms/${REALM}`, { settings: { acr_journeys: {} } })).statusCode).toBe(200);
    await answerDelete(page, 'strong', 'Delete');
    await said(page, 'Journey strong deleted.');
    await page.getByRole('region', { name: 'Journey strong' }).waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/journeys/strong`)).statusCode).toBe(404);
    expect(refusalsOnly(problems, [400, 409])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('adds an identity provider whose secret is typed once and never shown, signs a person in through it, edits it keeping or replacing the secret, and deletes it once confirmed', async () => {
    const { page, problems } = admin;
    // The upstream: another realm of this server, with a client registered for the callback the console names.
    const upstream = `${REALM}-corp`;
    const upstreamIssuer = `${t.baseUrl}/oauth2/${upstream}`;
    await t.admin.createRealm(upstream);
    await t.admin.request('POST', `/realms/${upstream}/users`, { username: 'erin', password: PASSWORD, claims: { email: 'erin@corp.example', email_verified: true, name: 'Erin Example' } });
    const upstreamClient = await t.admin.createClient(upstream, {
      redirect_uris: [`${issuer}/broker/corp/callback`],
      grant_types: ['authorization_code'],
      scope: 'openid profile email',
    });
    const upstreamSecret = upstreamClient.client_secret!;
    const sealed = async () => (await t.store.identityProviders.get(REALM, 'corp'))!.sealedSecret;

    await tab(page, 'Identity providers').click();
    const create = form(page, 'New identity provider');
    await expect(create.getByLabel('Scope').inputValue()).resolves.toBe('openid email profile');
    await expect(create.getByLabel('Username claim').inputValue()).resolves.toBe('preferred_username');
    await expect(create.getByLabel('Client secret').getAttribute('type')).resolves.toBe('password');
    await create.getByLabel(/^Alias/).fill('corp');
    await create.getByLabel(/^Issuer/).fill('http://corp.example');
    await create.getByLabel('Client ID at the provider').fill(upstreamClient.client_id);
    await create.getByLabel('Client secret').fill(upstreamSecret);
    await create.getByLabel('Display name').fill('Corp account');
    await create.getByRole('button', { name: 'Create identity provider' }).click();
    await said(page, /^issuer: must be an https URL without query or fragment/);
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).statusCode).toBe(404);

    await create.getByLabel(/^Issuer/).fill(upstreamIssuer);
    await create.getByRole('button', { name: 'Create identity provider' }).click();
    await said(page, `Identity provider corp created. Register ${issuer}/broker/corp/callback as a redirect URI at the provider.`);
    const row = page.getByRole('table', { name: 'Identity providers' }).getByRole('row', { name: /^corp Corp account/ });
    await expect(row.textContent()).resolves.toContain(`${issuer}/broker/corp/callback`);
    await expect(create.getByLabel('Client secret').inputValue()).resolves.toBe('');
    expect(await page.locator('body').textContent()).not.toContain(upstreamSecret);
    const created = (await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).json() as Record<string, unknown>;
    expect(created).toMatchObject({ alias: 'corp', kind: 'oidc', issuer: upstreamIssuer, client_id: upstreamClient.client_id, display_name: 'Corp account', link_by_verified_email: false });
    expect(JSON.stringify(created)).not.toContain(upstreamSecret);

    // A person signs in at the realm through the provider: the secret typed in the console is the one the broker uses.
    const person = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { challenge } = pkce();
      const query = new URLSearchParams({
        client_id: CLIENT_ID, response_type: 'code', redirect_uri: callback.redirectUri, scope: 'openid profile', state: 'via-corp', code_challenge: challenge, code_challenge_method: 'S256',
      });
      await person.page.goto(`${issuer}/authorize?${query}`);
      await Promise.all([person.page.waitForURL(startsWith(`${upstreamIssuer}/login?`)), person.page.getByRole('button', { name: 'Sign in with Corp account' }).click()]);
      await signIn(person.page, 'erin', PASSWORD, startsWith(`${upstreamIssuer}/consent?`));
      await Promise.all([person.page.waitForURL(startsWith(`${issuer}/consent?`)), person.page.locator('button[name=decision][value=allow]').click()]);
      await Promise.all([person.page.waitForURL((url) => `${url.origin}${url.pathname}` === callback.redirectUri), person.page.locator('button[name=decision][value=allow]').click()]);
      const redirect = new URL(person.page.url());
      expect(redirect.searchParams.get('state')).toBe('via-corp');
      expect(redirect.searchParams.get('code')).toEqual(expect.any(String));
      expect(person.problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await person.context.close();
    }
    const upstreamErin = (await t.admin.request('GET', `/realms/${upstream}/users/erin`)).json() as { sub: string };

    // The person made just in time shows the link on the Users tab.
    await tab(page, 'Users').click();
    await page.getByRole('button', { name: 'Open erin', exact: true }).click();
    await expect(page.getByRole('region', { name: 'User erin' }).textContent()).resolves.toContain(`corp: ${upstreamErin.sub}`);

    // An edit that leaves the secret empty keeps it; one that types a new one replaces it.
    await tab(page, 'Identity providers').click();
    const before = await sealed();
    await page.getByRole('button', { name: 'Edit corp', exact: true }).click();
    const edit = form(page, 'Edit identity provider corp');
    await expect(edit.getByLabel('Client secret').inputValue()).resolves.toBe('');
    await edit.getByText(`${issuer}/broker/corp/callback`, { exact: true }).waitFor();
    await edit.getByLabel('Display name').fill('Corp');
    await edit.getByLabel('Link by verified email').check();
    await edit.getByRole('button', { name: 'Save identity provider' }).click();
    await said(page, 'Identity provider corp saved: display_name, link_by_verified_email.');
    expect((await sealed()).equals(before)).toBe(true);
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).json()).toMatchObject({ display_name: 'Corp', link_by_verified_email: true });

    await page.getByRole('button', { name: 'Edit corp', exact: true }).click();
    await edit.getByLabel('Display name').fill('');
    await edit.getByLabel('Client secret').fill('a-new-upstream-secret');
    await edit.getByRole('button', { name: 'Save identity provider' }).click();
    await said(page, 'Identity provider corp saved: display_name, client_secret.');
    expect((await sealed()).equals(before)).toBe(false);
    const changed = (await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).json() as Record<string, unknown>;
    expect(changed).not.toHaveProperty('display_name');
    expect(JSON.stringify(changed)).not.toContain('a-new-upstream-secret');
    expect(await page.locator('body').textContent()).not.toContain('a-new-upstream-secret');

    await answerDelete(page, 'corp', 'Cancel', 'Delete the identity provider corp? Its button leaves the sign-in page, and the links of people to their accounts there are removed.');
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).statusCode).toBe(200);
    await answerDelete(page, 'corp', 'Delete');
    await said(page, 'Identity provider corp deleted.');
    await page.getByRole('table', { name: 'Identity providers' }).waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/identity-providers/corp`)).statusCode).toBe(404);
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 30_000);

  it('trusts an issuer by its keys, shows why a record is refused, changes it and stops trusting it once confirmed', async () => {
    const { page, problems } = admin;
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'idp-1' }] };
    await tab(page, 'Trusted issuers').click();
    const create = form(page, 'New trusted issuer');
    await create.getByLabel('Kind').selectOption('jwt');
    await create.getByLabel(/^Issuer/).fill('https://idp.example');
    await create.getByLabel('Client IDs').fill(CLIENT_ID);
    await create.getByLabel(/^JWKS \(JSON\)/).fill(JSON.stringify(jwks));
    await create.getByLabel(/^JWKS URI/).fill('https://idp.example/jwks');
    await create.getByRole('button', { name: 'Trust issuer' }).click();
    await said(page, 'jwks: give jwks or jwks_uri, exactly one');
    await create.getByLabel(/^JWKS URI/).fill('');
    await create.getByRole('button', { name: 'Trust issuer' }).click();
    await said(page, 'Trusted issuer https://idp.example created.');
    const issuers = page.getByRole('table', { name: 'Trusted issuers' });
    await issuers.getByRole('row', { name: new RegExp(`^https://idp\\.example jwt username ${CLIENT_ID} jwks \\(1 key\\)`) }).waitFor();
    const [stored] = (await t.admin.request('GET', `/realms/${REALM}/trusted-issuers`)).json() as Array<Record<string, unknown>>;
    expect(stored).toMatchObject({ kind: 'jwt', issuer: 'https://idp.example', jwks, subject_mapping: 'username', client_ids: [CLIENT_ID] });

    await page.getByRole('button', { name: 'Edit https://idp.example (jwt)', exact: true }).click();
    const edit = form(page, 'Edit trusted issuer https://idp.example');
    await expect(edit.getByLabel('Client IDs').inputValue()).resolves.toBe(CLIENT_ID);
    await edit.getByLabel('Subject mapping').selectOption('email');
    await edit.getByLabel('Client IDs').fill('');
    await edit.getByRole('button', { name: 'Save trusted issuer' }).click();
    await said(page, 'Trusted issuer https://idp.example saved: subject_mapping, client_ids.');
    await issuers.getByRole('row', { name: /^https:\/\/idp\.example jwt email every client/ }).waitFor();
    const changed = (await t.admin.request('GET', `/realms/${REALM}/trusted-issuers/${stored!.id}`)).json() as Record<string, unknown>;
    expect(changed).toMatchObject({ subject_mapping: 'email', jwks });
    expect(changed).not.toHaveProperty('client_ids');

    await answerDelete(page, 'https://idp.example (jwt)', 'Delete', 'Stop trusting https://idp.example? Its jwt assertions are refused from now on.');
    await said(page, 'Trusted issuer https://idp.example deleted.');
    expect((await t.admin.request('GET', `/realms/${REALM}/trusted-issuers/${stored!.id}`)).statusCode).toBe(404);
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  /** A realm of its own for this round's fields, so that the clients made there stay out of the audit events counted below. */
  const agents = `${REALM}-agents`;

  it("sets a realm's transaction tokens (a trust domain and a lifetime of at most 300 s; no trust domain: off)", async () => {
    const { page, problems } = admin;
    await t.admin.createRealm(agents);
    const settingsOf = async () => ((await t.admin.request('GET', `/realms/${agents}`)).json() as { settings: Record<string, unknown> }).settings;

    // Realm settings: transaction_tokens is a trust domain and a lifetime; an empty trust domain turns them off.
    await page.goto(`${consoleUrl()}#/realms/${agents}/settings`);
    const settings = form(page, 'Realm settings');
    const tokens = settings.getByRole('group', { name: 'Transaction tokens' });
    const trustDomain = tokens.getByLabel(/^Trust domain/);
    const lifetime = tokens.getByLabel(/^Lifetime \(seconds\)/);
    const saveSettings = settings.getByRole('button', { name: 'Save settings' });
    await expect(trustDomain.inputValue()).resolves.toBe('');
    await lifetime.fill('60');
    await saveSettings.click();
    await said(page, 'transaction_tokens: a lifetime needs a trust domain; empty both to issue none.');
    expect((await settingsOf()).transaction_tokens).toBeNull();
    await trustDomain.fill('https://api.shop.example');
    await lifetime.fill('301');
    await saveSettings.click();
    // The browser holds the form back: a lifetime over 300 is never sent.
    expect(await lifetime.evaluate((input) => (input as unknown as { validity: { rangeOverflow: boolean } }).validity.rangeOverflow)).toBe(true);
    expect((await settingsOf()).transaction_tokens).toBeNull();
    await lifetime.fill('120');
    await saveSettings.click();
    await said(page, 'Settings saved: transaction_tokens.');
    expect((await settingsOf()).transaction_tokens).toEqual({ trust_domain: 'https://api.shop.example', lifetime: 120 });
    await saveSettings.click();
    await said(page, 'Nothing changed.');
    await trustDomain.fill('');
    await lifetime.fill('');
    await saveSettings.click();
    await said(page, 'Settings saved: transaction_tokens.');
    expect((await settingsOf()).transaction_tokens).toBeNull();
    await trustDomain.fill('https://api.shop.example');
    await saveSettings.click();
    await said(page, 'Settings saved: transaction_tokens.');
    expect((await settingsOf()).transaction_tokens).toEqual({ trust_domain: 'https://api.shop.example' });
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  });

  it("sets a client's logout, signed-response and delegation fields (ID-JAG audiences as rows), and saves a client without them without them", async () => {
    const { page, problems } = admin;
    const clientOf = async (clientId: string) => (await t.admin.request('GET', `/realms/${agents}/clients/${clientId}`)).json() as Record<string, unknown>;

    // A client made without the new fields is saved without them, and stays so when edited.
    await tab(page, 'Clients').click();
    const create = form(page, 'New client');
    await create.getByLabel(/^Client ID/).fill('plain');
    await create.getByLabel('Redirect URIs').fill(callback.redirectUri);
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, 'Client plain created.');
    const optional = ['backchannel_logout_uri', 'backchannel_logout_session_required', 'frontchannel_logout_uri', 'frontchannel_logout_session_required', 'id_jag_audiences', 'transaction_token_service'];
    const plain = await clientOf('plain');
    for (const name of optional) expect(plain, name).not.toHaveProperty(name);
    expect(plain).toMatchObject({ id_token_signed_response_alg: 'RS256', authorization_signed_response_alg: 'RS256', introspection_signed_response_alg: 'RS256' });
    await page.getByRole('button', { name: 'Edit plain', exact: true }).click();
    let edit = form(page, 'Edit client plain');
    await edit.getByRole('button', { name: 'Add an ID-JAG audience' }).click(); // left empty: no audience
    await edit.getByLabel('Name', { exact: true }).fill('Plain');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Client plain saved: client_name.');
    const edited = await clientOf('plain');
    for (const name of optional) expect(edited, name).not.toHaveProperty(name);

    // A client made with them: the logout URIs, both boxes, transaction token service and an ID-JAG audience.
    await create.getByLabel(/^Client ID/).fill('gateway');
    await create.getByLabel(/^Back-channel logout URI/).fill('http://gateway.example/logout');
    await create.getByLabel(/^Back-channel logout needs the session ID/).check();
    await create.getByLabel(/^Front-channel logout URI/).fill('http://127.0.0.1:9/front-channel-logout');
    await create.getByLabel(/^Front-channel logout needs the issuer and session ID/).check();
    await create.getByLabel(/^Transaction token service/).check();
    await create.getByRole('button', { name: 'Add an ID-JAG audience' }).click();
    const first = create.getByRole('group', { name: 'ID-JAG audience 1', exact: true });
    await first.getByLabel('Issuer').fill('https://as.partner.example');
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, "ID-JAG audience 1: give its issuer and this client's client ID there.");
    expect((await t.admin.request('GET', `/realms/${agents}/clients/gateway`)).statusCode).toBe(404);
    await first.getByLabel('Client ID there').fill('shop-at-partner');
    await first.getByLabel('Scope there').fill('  orders:read   orders:write ');
    // The server's rules hold: a logout URI is https, or http on a loopback host only.
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, /^backchannel_logout_uri: must be https \(http only on a loopback host\)/);
    expect((await t.admin.request('GET', `/realms/${agents}/clients/gateway`)).statusCode).toBe(404);
    await create.getByLabel(/^Back-channel logout URI/).fill('https://gateway.example/logout');
    await create.getByRole('button', { name: 'Create client' }).click();
    await said(page, 'Client gateway created.');
    expect(await clientOf('gateway')).toMatchObject({
      backchannel_logout_uri: 'https://gateway.example/logout',
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: 'http://127.0.0.1:9/front-channel-logout',
      frontchannel_logout_session_required: true,
      transaction_token_service: true,
      id_jag_audiences: [{ issuer: 'https://as.partner.example', client_id: 'shop-at-partner', scope: 'orders:read orders:write' }],
      authorization_signed_response_alg: 'RS256',
    });

    // Edited: the form shows them; two audiences added, the first taken out; a URI emptied, a box unticked, two algorithms changed.
    await page.getByRole('button', { name: 'Edit gateway', exact: true }).click();
    edit = form(page, 'Edit client gateway');
    await expect(edit.getByLabel(/^Back-channel logout URI/).inputValue()).resolves.toBe('https://gateway.example/logout');
    await expect(edit.getByLabel(/^Front-channel logout needs the issuer and session ID/).isChecked()).resolves.toBe(true);
    await expect(edit.getByLabel(/^Transaction token service/).isChecked()).resolves.toBe(true);
    await expect(edit.getByRole('group', { name: 'ID-JAG audience 1', exact: true }).getByLabel('Scope there').inputValue()).resolves.toBe('orders:read orders:write');
    const more = JSON.parse(await edit.getByLabel('More fields (JSON)').inputValue()) as Record<string, unknown>;
    for (const name of [...optional, 'authorization_signed_response_alg', 'introspection_signed_response_alg']) expect(more, name).not.toHaveProperty(name);
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Nothing changed.');
    for (const [issuerUrl, clientId] of [['https://as.other.example', 'shop'], ['https://as.third.example', 'shop-3']] as const) {
      await edit.getByRole('button', { name: 'Add an ID-JAG audience' }).click();
      const row = edit.getByRole('group', { name: /^ID-JAG audience/ }).last();
      await row.getByLabel('Issuer').fill(issuerUrl);
      await row.getByLabel('Client ID there').fill(clientId);
    }
    await edit.getByRole('button', { name: 'Remove ID-JAG audience 1', exact: true }).click();
    await expect(edit.getByRole('group', { name: 'ID-JAG audience 1', exact: true }).getByLabel('Issuer').inputValue()).resolves.toBe('https://as.other.example');
    expect(await edit.getByRole('group', { name: /^ID-JAG audience/ }).count()).toBe(2);
    await edit.getByLabel(/^Back-channel logout URI/).fill('');
    await edit.getByLabel(/^Front-channel logout needs the issuer and session ID/).uncheck();
    await edit.getByLabel(/^Authorization response algorithm/).selectOption('ES256');
    await edit.getByLabel(/^Introspection response algorithm/).selectOption('ES256');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Client gateway saved: backchannel_logout_uri, frontchannel_logout_session_required, authorization_signed_response_alg, introspection_signed_response_alg, id_jag_audiences.');
    const gateway = await clientOf('gateway');
    expect(gateway).not.toHaveProperty('backchannel_logout_uri');
    expect(gateway).toMatchObject({
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: 'http://127.0.0.1:9/front-channel-logout',
      frontchannel_logout_session_required: false,
      transaction_token_service: true,
      authorization_signed_response_alg: 'ES256',
      introspection_signed_response_alg: 'ES256',
      id_token_signed_response_alg: 'RS256',
    });
    expect(gateway.id_jag_audiences).toEqual([{ issuer: 'https://as.other.example', client_id: 'shop' }, { issuer: 'https://as.third.example', client_id: 'shop-3' }]);

    // Every audience taken out, the box unticked: [] and false, as the record allows.
    await page.getByRole('button', { name: 'Edit gateway', exact: true }).click();
    edit = form(page, 'Edit client gateway');
    await edit.getByRole('button', { name: 'Remove ID-JAG audience 2', exact: true }).click();
    await edit.getByRole('button', { name: 'Remove ID-JAG audience 1', exact: true }).click();
    await edit.getByLabel(/^Transaction token service/).uncheck();
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'Client gateway saved: transaction_token_service, id_jag_audiences.');
    expect(await clientOf('gateway')).toMatchObject({ transaction_token_service: false, id_jag_audiences: [] });
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 30_000);

  it("sets a trusted issuer's id_jag and link_by_email, and saves one without them without them", async () => {
    const { page, problems } = admin;
    // Trusted issuers: one for ID-JAGs linking by email, one without either field.
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'partner-1' }] };
    const issuersOf = async () => (await t.admin.request('GET', `/realms/${agents}/trusted-issuers`)).json() as Array<Record<string, unknown>>;
    await tab(page, 'Trusted issuers').click();
    const trust = form(page, 'New trusted issuer');
    for (const [issuerUrl, idJag] of [['https://idp.partner.example', true], ['https://jwt.partner.example', false]] as const) {
      await trust.getByLabel(/^Issuer/).fill(issuerUrl);
      await trust.getByLabel(/^JWKS \(JSON\)/).fill(JSON.stringify(jwks));
      if (idJag) {
        await trust.getByLabel(/^Issues ID-JAGs/).check();
        await trust.getByLabel(/^Link by verified email/).check();
      }
      await trust.getByRole('button', { name: 'Trust issuer' }).click();
      await said(page, `Trusted issuer ${issuerUrl} created.`);
    }
    const issuers = page.getByRole('table', { name: 'Trusted issuers' });
    await issuers.getByRole('row', { name: /^https:\/\/idp\.partner\.example jwt \(ID-JAG\) username every client/ }).waitFor();
    await issuers.getByRole('row', { name: /^https:\/\/jwt\.partner\.example jwt username every client/ }).waitFor();
    const byIssuer = async () => Object.fromEntries((await issuersOf()).map((record) => [record.issuer, record]));
    let stored = await byIssuer();
    expect(stored['https://idp.partner.example']).toMatchObject({ id_jag: true, link_by_email: true, jwks });
    expect(stored['https://jwt.partner.example']).not.toHaveProperty('id_jag');
    expect(stored['https://jwt.partner.example']).not.toHaveProperty('link_by_email');

    // The plain one: saved unchanged, nothing sent; linking by email alone is refused with the reason.
    await page.getByRole('button', { name: 'Edit https://jwt.partner.example (jwt)', exact: true }).click();
    let change = form(page, 'Edit trusted issuer https://jwt.partner.example');
    await expect(change.getByLabel(/^Issues ID-JAGs/).isChecked()).resolves.toBe(false);
    await change.getByRole('button', { name: 'Save trusted issuer' }).click();
    await said(page, 'Nothing changed.');
    await change.getByLabel(/^Link by verified email/).check();
    await change.getByRole('button', { name: 'Save trusted issuer' }).click();
    await said(page, 'link_by_email: only an id_jag issuer links subjects by email');
    expect((await byIssuer())['https://jwt.partner.example']).not.toHaveProperty('link_by_email');
    await change.getByRole('button', { name: 'Cancel' }).click();

    // The ID-JAG one: linking by email unticked.
    await page.getByRole('button', { name: 'Edit https://idp.partner.example (jwt)', exact: true }).click();
    change = form(page, 'Edit trusted issuer https://idp.partner.example');
    await expect(change.getByLabel(/^Link by verified email/).isChecked()).resolves.toBe(true);
    await change.getByLabel(/^Link by verified email/).uncheck();
    await change.getByRole('button', { name: 'Save trusted issuer' }).click();
    await said(page, 'Trusted issuer https://idp.partner.example saved: link_by_email.');
    stored = await byIssuer();
    expect(stored['https://idp.partner.example']).toMatchObject({ id_jag: true, link_by_email: false });

    await page.goto(`${consoleUrl()}#/realms/${REALM}/trusted-issuers`);
    await form(page, 'New trusted issuer').waitFor();
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  });

  it('issues an initial access token, shown once, with which one client registers itself beyond the realm policy', async () => {
    const { page, problems } = admin;
    await tab(page, 'Initial access tokens').click();
    await page.getByText(`${issuer}/connect/register`, { exact: true }).waitFor();
    const issue = form(page, 'New initial access token');
    await issue.getByLabel('Lifetime (seconds)').fill('600');
    await issue.getByLabel('Client credentials').check();
    await issue.getByRole('button', { name: 'Issue token' }).click();
    await said(page, 'An initial access token for one registration, valid 600 s.');
    const { token } = await secretShown(page.getByRole('region', { name: 'Initial access token' }));
    const register = (bearer: string) =>
      fetch(`${issuer}/connect/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Registered', grant_types: ['client_credentials'] }),
      });
    const first = await register(token!);
    expect(first.status, await first.clone().text()).toBe(201);
    expect(await first.json()).toMatchObject({ grant_types: ['client_credentials'] });
    expect((await register(token!)).status).toBe(401);
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  });

  it("edits a client's other fields as JSON, changes and takes out a person's claims, and deletes a client, a person and a realm once confirmed", async () => {
    const { page, problems } = admin;
    await t.admin.createClient(REALM, { client_id: 'throwaway', client_type: 'public', redirect_uris: [callback.redirectUri] });
    await tab(page, 'Clients').click();
    await page.getByRole('button', { name: `Edit ${CLIENT_ID}`, exact: true }).click();
    const edit = form(page, `Edit client ${CLIENT_ID}`);
    const moreField = edit.getByLabel('More fields (JSON)');
    const more = JSON.parse(await moreField.inputValue()) as Record<string, unknown>;
    expect(more).toMatchObject({ client_type: 'confidential', token_endpoint_auth_method: 'client_secret_basic', introspect_any_token: false });
    expect(Object.keys(more)).not.toEqual(expect.arrayContaining(['client_id', 'client_name', 'redirect_uris', 'grant_types', 'scope']));
    await moreField.fill(JSON.stringify({ ...more, client_name: 'Elsewhere' }));
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, 'More fields: client_name is set above, not here.');
    await moreField.fill(JSON.stringify({ ...more, introspect_any_token: true }));
    await edit.getByRole('button', { name: 'Save client' }).click();
    await said(page, `Client ${CLIENT_ID} saved: introspect_any_token.`);
    expect((await t.admin.request('GET', `/realms/${REALM}/clients/${CLIENT_ID}`)).json()).toMatchObject({ introspect_any_token: true, client_name: 'Shop' });

    await answerDelete(page, 'throwaway', 'Cancel', 'Delete the client throwaway? Its tokens stop working at once.');
    expect((await t.admin.request('GET', `/realms/${REALM}/clients/throwaway`)).statusCode).toBe(200);
    await answerDelete(page, 'throwaway', 'Delete');
    await said(page, 'Client throwaway deleted.');
    await page.getByRole('button', { name: 'Delete throwaway', exact: true }).waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/clients/throwaway`)).statusCode).toBe(404);

    // A person: claims changed, one taken out, then the person deleted.
    await tab(page, 'Users').click();
    const newUser = form(page, 'New user');
    await newUser.getByLabel('New username').fill('bob');
    await newUser.getByLabel(/^Password/).fill(PASSWORD);
    await newUser.getByRole('button', { name: 'Create user' }).click();
    await said(page, 'User bob created.');
    // The standard claims are fields; the others JSON, in an advanced view.
    const claims = form(page, 'Claims of bob');
    await expect(claims.getByLabel('Full name').inputValue()).resolves.toBe('');
    await expect(claims.getByLabel(/^Other claims \(JSON\)/).inputValue()).resolves.toBe('');
    await claims.getByLabel('Full name').fill('Bob');
    await claims.getByLabel('Email', { exact: true }).fill('bob@example.com');
    await claims.getByLabel('Email verified').check();
    await claims.getByText('Other claims (advanced)').click();
    await claims.getByLabel(/^Other claims \(JSON\)/).fill('{"department": "Sales", "email": "other@example.com"}');
    await claims.getByRole('button', { name: 'Save claims' }).click();
    await said(page, 'Other claims: email has a field of its own above; set it there.');
    await claims.getByLabel(/^Other claims \(JSON\)/).fill('{"department": "Sales"}');
    await claims.getByRole('button', { name: 'Save claims' }).click();
    await said(page, 'Claims of bob saved: name, email, email_verified, department.');
    expect(((await t.admin.request('GET', `/realms/${REALM}/users/bob`)).json() as { claims: unknown }).claims).toEqual({ name: 'Bob', email: 'bob@example.com', email_verified: true, department: 'Sales' });
    await claims.getByLabel('Full name').fill('');
    await claims.getByLabel('Email verified').uncheck();
    await claims.getByRole('button', { name: 'Save claims' }).click();
    await said(page, 'Claims of bob saved: name, email_verified.');
    expect(((await t.admin.request('GET', `/realms/${REALM}/users/bob`)).json() as { claims: unknown }).claims).toEqual({ email: 'bob@example.com', email_verified: false, department: 'Sales' });
    await answerDelete(page, 'bob', 'Delete', 'Delete bob? Their sessions end and their tokens stop working.');
    await said(page, 'User bob deleted.');
    await page.getByRole('region', { name: 'User bob' }).waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/users/bob`)).statusCode).toBe(404);

    // A realm, made and deleted; the root realm cannot be.
    const gone = `${REALM}-gone`;
    await page.getByRole('link', { name: 'Realms', exact: true }).click();
    await form(page, 'New realm').getByLabel('Realm name').fill(gone);
    await Promise.all([page.waitForURL(`${consoleUrl()}#/realms/${gone}/settings`), page.getByRole('button', { name: 'Create realm' }).click()]);
    await form(page, 'Realm settings').waitFor();
    await answerDelete(page, gone, 'Delete', `Delete the realm ${gone} and everything in it? This cannot be undone.`);
    await said(page, `Realm ${gone} deleted.`);
    expect(page.url()).toBe(`${consoleUrl()}#/realms`);
    const realms = page.getByRole('table', { name: 'Realms' });
    await realms.getByRole('link', { name: REALM, exact: true }).waitFor();
    expect(await realms.getByRole('link', { name: gone, exact: true }).count()).toBe(0);
    expect((await t.admin.request('GET', `/realms/${gone}`)).statusCode).toBe(404);
    await realms.getByRole('link', { name: 'root', exact: true }).click();
    await page.getByText('The root realm always exists: it cannot be deleted.').waitFor();
    expect(await page.getByRole('button', { name: 'Delete root', exact: true }).count()).toBe(0);

    await page.getByRole('link', { name: 'Realms', exact: true }).click();
    await page.getByRole('table', { name: 'Realms' }).getByRole('link', { name: REALM, exact: true }).click();
    await form(page, 'Realm settings').waitFor();
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 30_000);

  it("stores roles and groups, gives a person both, lists and searches people, ends a person's sessions, disables and enables them, registers a resource, maps roles into a scope's claims, and exports a realm and imports it as another", async () => {
    const { page, problems } = admin;
    // Roles.
    await tab(page, 'Roles').click();
    const saveRole = form(page, 'Save a role');
    for (const [name, description] of [['orders:read', 'Read orders'], ['orders:write', 'Change orders'], ['temporary', '']] as const) {
      await saveRole.getByLabel('Role name').fill(name);
      await saveRole.getByLabel('Description').fill(description);
      await saveRole.getByRole('button', { name: 'Save role' }).click();
      await said(page, `Role ${name} saved.`);
    }
    await page.getByRole('table', { name: 'Roles' }).getByRole('row', { name: /^orders:write Change orders/ }).waitFor();
    await answerDelete(page, 'temporary', 'Delete', 'Delete the role temporary? It is taken from every group and person that has it.');
    await said(page, 'Role temporary deleted.');
    expect(((await t.admin.request('GET', `/realms/${REALM}/roles`)).json() as Array<{ name: string }>).map((role) => role.name)).toEqual(['orders:read', 'orders:write']);

    // A group giving a role, then changed to give both.
    await tab(page, 'Groups').click();
    const saveGroup = form(page, 'Save a group');
    await saveGroup.getByLabel('Group name').fill('clerks');
    await saveGroup.getByLabel('Description').fill('The shop floor');
    await saveGroup.getByLabel('orders:write', { exact: true }).check();
    await saveGroup.getByRole('button', { name: 'Save group' }).click();
    await said(page, 'Group clerks saved.');
    await page.getByRole('table', { name: 'Groups' }).getByRole('row', { name: /^clerks orders:write The shop floor/ }).waitFor();
    await page.getByRole('button', { name: 'Edit clerks', exact: true }).click();
    await expect(saveGroup.getByLabel('orders:write', { exact: true }).isChecked()).resolves.toBe(true);
    await saveGroup.getByLabel('orders:read', { exact: true }).check();
    await saveGroup.getByRole('button', { name: 'Save group' }).click();
    await said(page, 'Group clerks saved.');
    expect((await t.admin.request('GET', `/realms/${REALM}/groups/clerks`)).json()).toEqual({ name: 'clerks', description: 'The shop floor', roles: ['orders:read', 'orders:write'] });

    // People: listed, searched, opened; a role and a group given, the role taken back.
    await tab(page, 'Users').click();
    const people = page.getByRole('table', { name: 'People' });
    await expect.poll(() => people.locator('tbody tr td:first-child').allTextContents()).toEqual(['alice', 'erin']);
    await form(page, 'Search people').getByLabel('Search').fill('ERIN@corp');
    await form(page, 'Search people').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => people.locator('tbody tr td:first-child').allTextContents()).toEqual(['erin']);
    await form(page, 'Search people').getByLabel('Search').fill('');
    await form(page, 'Search people').getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Open alice', exact: true }).click();
    const memberships = page.getByRole('region', { name: 'Roles and groups of alice' });
    await form(page, 'Give alice a role').getByLabel('Role').selectOption('orders:read');
    await form(page, 'Give alice a role').getByRole('button', { name: 'Grant role' }).click();
    await said(page, 'alice now holds the role orders:read.');
    await form(page, 'Add alice to a group').getByLabel('Group').selectOption('clerks');
    await form(page, 'Add alice to a group').getByRole('button', { name: 'Join group' }).click();
    await said(page, 'alice is now in the group clerks.');
    await expect(memberships.textContent()).resolves.toContain('Roles held, their own and through groups: orders:read, orders:write.');
    await memberships.getByRole('button', { name: 'Remove the role orders:read of alice' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove', exact: true }).click();
    await said(page, 'alice no longer holds the role orders:read.');
    expect((await t.admin.request('GET', `/realms/${REALM}/users/alice`)).json()).toMatchObject({ roles: [], groups: ['clerks'], effective_roles: ['orders:read', 'orders:write'] });

    // Her session of the code flow above, ended everywhere.
    const sessions = page.getByRole('table', { name: 'Sessions of alice' });
    await expect(sessions.locator('tbody tr').count()).resolves.toBe(1);
    await expect(sessions.textContent()).resolves.toContain(CLIENT_ID);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Sign out', exact: true }).click();
    await said(page, 'alice is signed out everywhere.');
    await sessions.waitFor({ state: 'detached' });
    expect((await t.admin.request('GET', `/realms/${REALM}/users/alice/sessions`)).json()).toEqual({ sessions: [] });

    // Disabled once confirmed, then enabled again.
    await page.getByRole('region', { name: 'User alice' }).getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Disable', exact: true }).click();
    await said(page, 'alice is disabled.');
    await people.getByRole('row', { name: /^Open alice .*disabled/ }).waitFor();
    expect(((await t.admin.request('GET', `/realms/${REALM}/users/alice`)).json() as { enabled: boolean }).enabled).toBe(false);
    await page.getByRole('region', { name: 'User alice' }).getByRole('button', { name: 'Enable', exact: true }).click();
    await said(page, 'alice is enabled.');
    expect(((await t.admin.request('GET', `/realms/${REALM}/users/alice`)).json() as { enabled: boolean }).enabled).toBe(true);

    // A registered resource whose tokens carry one scope; an unknown scope refused; deleted once confirmed.
    await tab(page, 'Resources').click();
    const saveResource = form(page, 'Save a resource');
    await saveResource.getByLabel(/^Identifier/).fill('https://orders.example/');
    await saveResource.getByLabel(/^Name/).fill('Orders API');
    await saveResource.getByLabel(/^Scopes/).fill('orders:read nothing');
    await saveResource.getByRole('button', { name: 'Save resource' }).click();
    await said(page, 'scopes: no such scope in the realm: nothing');
    await saveResource.getByLabel(/^Scopes/).fill('orders:read');
    await saveResource.getByRole('button', { name: 'Save resource' }).click();
    await said(page, 'Resource https://orders.example/ saved.');
    await page.getByRole('table', { name: 'Resources' }).getByRole('row', { name: /^https:\/\/orders\.example\/ Orders API orders:read/ }).waitFor();
    await page.getByRole('button', { name: 'Edit https://orders.example/', exact: true }).click();
    await saveResource.getByLabel(/^Name/).fill('');
    await saveResource.getByLabel(/^Scopes/).fill('');
    await saveResource.getByRole('button', { name: 'Save resource' }).click();
    await said(page, 'Resource https://orders.example/ saved.');
    expect((await t.admin.request('GET', `/realms/${REALM}/resources?identifier=${encodeURIComponent('https://orders.example/')}`)).json()).toEqual({ identifier: 'https://orders.example/' });
    await answerDelete(page, 'https://orders.example/', 'Delete', 'Unregister https://orders.example/? Clients can no longer ask tokens for it, unless they list it themselves.');
    await said(page, 'Resource https://orders.example/ deleted.');
    expect((await t.admin.request('GET', `/realms/${REALM}/resources`)).json()).toEqual([]);

    // A scope's claims carry the roles into introspection.
    await tab(page, 'Scopes').click();
    await page.getByRole('button', { name: 'Edit orders:read', exact: true }).click();
    // Each claim is a row: its name, where its value comes from, the tokens it goes in.
    const scopeForm = form(page, 'New scope');
    await scopeForm.getByRole('button', { name: 'Add a claim' }).click();
    const first = scopeForm.getByRole('group', { name: 'Claim 1', exact: true });
    await first.getByLabel('Claim name').fill('roles');
    await first.getByLabel('Introspection').check();
    await scopeForm.getByRole('button', { name: 'Add a claim' }).click();
    const second = scopeForm.getByRole('group', { name: 'Claim 2', exact: true });
    await second.getByLabel('Claim name').fill('dept');
    await second.getByLabel('Its value').selectOption('attribute');
    await second.getByLabel('Access token').check();
    await scopeForm.getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Claim 2: name the claim of theirs it takes its value from.');
    await second.getByLabel(/^Their claim/).fill('department');
    await scopeForm.getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Scope orders:read saved.');
    await page.getByRole('table', { name: 'Scopes' }).getByRole('row', { name: /orders:read .*roles ← roles → introspection/ }).waitFor();
    expect((await t.admin.request('GET', `/realms/${REALM}/scopes/orders:read`)).json()).toMatchObject({
      claims: [{ name: 'roles', source: 'roles', tokens: ['introspection'] }, { name: 'dept', source: 'attribute:department', tokens: ['access_token'] }],
    });
    // Opened again: the rows as stored; one removed, the other kept.
    await page.getByRole('button', { name: 'Edit orders:read', exact: true }).click();
    await expect(second.getByLabel(/^Their claim/).inputValue()).resolves.toBe('department');
    await scopeForm.getByRole('button', { name: 'Remove claim 2', exact: true }).click();
    await scopeForm.getByRole('button', { name: 'Save scope' }).click();
    await said(page, 'Scope orders:read saved.');
    const claims = [{ name: 'roles', source: 'roles', tokens: ['introspection'] }];
    expect((await t.admin.request('GET', `/realms/${REALM}/scopes/orders:read`)).json()).toMatchObject({ claims });

    // The realm as a document, then imported as another realm; an import that prunes asks first.
    await tab(page, 'Settings').click();
    const exporter = form(page, 'Export the realm');
    await exporter.getByRole('button', { name: 'Export realm' }).click();
    await said(page, `Realm ${REALM} exported.`);
    const exported = JSON.parse(await page.getByLabel('Realm document').inputValue()) as Record<string, unknown>;
    expect(exported).toMatchObject({ realm: REALM, groups: [{ name: 'clerks', roles: ['orders:read', 'orders:write'] }] });
    expect(exported).not.toHaveProperty('users');
    const download = page.getByRole('link', { name: `Download ${REALM}.json` });
    await expect(download.getAttribute('download')).resolves.toBe(`${REALM}.json`);
    await expect(download.getAttribute('href')).resolves.toMatch(/^blob:/);
    await exporter.getByLabel('With its people').check();
    await exporter.getByRole('button', { name: 'Export realm' }).click();
    await said(page, `Realm ${REALM} exported with its people.`);
    await page.getByText('It holds password hashes: keep it as you keep the database.').waitFor();
    const withPeople = JSON.parse(await page.getByLabel('Realm document').inputValue()) as { users: Array<{ username: string }> };
    expect(withPeople.users.map((user) => user.username)).toEqual(['alice', 'erin']);

    const copy = `${REALM}-copy`;
    await page.getByRole('link', { name: 'Realms', exact: true }).click();
    const importer = form(page, 'Import a realm');
    await importer.getByLabel('Realm to import into').fill(copy);
    await importer.getByLabel('Document (JSON)').fill(JSON.stringify(exported));
    await importer.getByRole('button', { name: 'Import' }).click();
    await said(page, new RegExp(`^Realm ${copy} created: .*roles 2 created.*Without a secret yet: .*client ${CLIENT_ID}\\b`));
    await page.getByRole('table', { name: 'Realms' }).getByRole('link', { name: copy, exact: true }).waitFor();
    expect((await t.admin.request('GET', `/realms/${copy}/groups/clerks`)).json()).toEqual({ name: 'clerks', description: 'The shop floor', roles: ['orders:read', 'orders:write'] });

    await form(page, 'Import a realm').getByLabel('Realm to import into').fill(copy);
    await form(page, 'Import a realm').getByLabel('Document (JSON)').fill(JSON.stringify({ roles: [] }));
    await form(page, 'Import a realm').getByLabel(/^Prune/).check();
    await form(page, 'Import a realm').getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Import into ${copy} and delete what the document's sections leave out? This cannot be undone.` });
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(((await t.admin.request('GET', `/realms/${copy}/roles`)).json() as unknown[]).length).toBe(2);
    expect((await t.admin.request('DELETE', `/realms/${copy}`)).statusCode).toBe(204);

    await page.getByRole('table', { name: 'Realms' }).getByRole('link', { name: REALM, exact: true }).click();
    await form(page, 'Realm settings').waitFor();
    expect(refusalsOnly(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 45_000);

  it('lists the creations and the sign-in among the audit events, and filters them by type', async () => {
    const { page, problems } = admin;
    await tab(page, 'Events').click();
    const events = page.getByRole('table', { name: 'Audit events' });
    await events.waitFor();
    const filters = form(page, 'Event filters');
    await filters.getByLabel('Page size').fill('1000');
    await Promise.all([
      page.waitForResponse((response) => response.url().includes('/events?limit=1000')),
      filters.getByRole('button', { name: 'Show events' }).click(),
    ]);
    await events.waitFor();
    const types = await events.locator('tbody tr td:nth-child(2)').allTextContents();
    for (const type of ['realm.created', 'realm.updated', 'scope.saved', 'client.created', 'user.created', 'user.totp_enrolled', 'sign_in.succeeded', 'consent.granted', 'token.issued', 'client.secret_rotated', 'keys.rotated', 'scope.deleted', 'journey.saved', 'journey.deleted',
      'identity_provider.created', 'identity_provider.updated', 'identity_provider.deleted', 'identity.linked', 'trusted_issuer.created', 'trusted_issuer.updated',
      'trusted_issuer.deleted', 'initial_access_token.created', 'client.updated', 'client.deleted', 'user.updated', 'user.deleted',
      'role.saved', 'role.deleted', 'group.saved', 'user.role_granted', 'user.role_revoked', 'user.group_joined', 'user.sessions_ended',
      'user.disabled', 'user.enabled', 'realm.exported', 'resource.saved', 'resource.deleted']) {
      expect(types, type).toContain(type);
    }
    await filters.getByLabel('Types').fill('client.created, user.created');
    await filters.getByRole('button', { name: 'Show events' }).click();
    // The clients shop-web, throwaway and the one registered with the initial access token; alice, bob and erin (made at her first sign-in).
    const shownTypes = () => events.locator('tbody tr td:nth-child(2)').allTextContents();
    await expect.poll(async () => [...new Set(await shownTypes())].sort()).toEqual(['client.created', 'user.created']);
    expect((await shownTypes()).sort()).toEqual([...Array(3).fill('client.created'), ...Array(3).fill('user.created')]);
    const rows = await events.locator('tbody tr').allTextContents();
    expect(rows.filter((text) => text.includes('client.created')).at(-1)).toContain(CLIENT_ID);
    expect(rows.filter((text) => text.includes('user.created')).at(-1)).toContain('"username":"alice"');
    // The console signs in with ADMIN_TOKEN: the actor of its changes (CONTRACT.md §14).
    expect(rows.filter((text) => text.includes('user.created')).at(-1)).toContain('ADMIN_TOKEN');

    // A page at a time: each "Older events" appends the page after the last one shown.
    await filters.getByLabel('Page size').fill('2');
    await filters.getByRole('button', { name: 'Show events' }).click();
    const pages = page.getByRole('table', { name: 'Audit events' });
    await expect.poll(() => pages.locator('tbody tr').count()).toBe(2);
    for (const shown of [4, 6]) {
      await page.getByRole('button', { name: 'Older events' }).click();
      await expect.poll(() => pages.locator('tbody tr').count()).toBe(shown);
    }
    expect((await pages.locator('tbody tr td:nth-child(2)').allTextContents()).sort()).toEqual([...Array(3).fill('client.created'), ...Array(3).fill('user.created')]);
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
