import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { createUser } from '../support/users.js';
import { type Problems, browserSkipReason, launchChromium, signIn, startsWith, watchedContext } from './support.js';

/**
 * The admin console signing in through the root realm (CONTRACT.md §14) in a real Chromium: the
 * code flow with PKCE as the public client realmgate-console, the token kept in the page's
 * memory alone (nothing in localStorage, sessionStorage or cookies of the console), a realm
 * admin seeing their one realm, a viewer seeing every button that would change something
 * disabled with its reason, and signing out (the refresh token revoked, the root session ended).
 */
const skipReason = browserSkipReason('test/browser/admin-console-sign-in.test.ts');

const suffix = randomBytes(3).toString('hex');
const REALM = `team-${suffix}`;
const OTHER = `elsewhere-${suffix}`;
const PASSWORD = 'correct horse battery staple';

describe.skipIf(skipReason !== undefined)(`the admin console signing in through realmgate${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    await t.admin.createRealm(REALM);
    await t.admin.createRealm(OTHER);
    await t.admin.request('POST', `/realms/${REALM}/clients`, { client_id: 'shop', client_type: 'public', redirect_uris: ['https://shop.example/cb'] });
    for (const [username, role] of [['team-admin', `realmgate-admin:${REALM}`], ['team-viewer', `realmgate-viewer:${REALM}`]] as const) {
      expect((await t.admin.request('PUT', `/realms/root/roles/${encodeURIComponent(role)}`, {})).statusCode).toBeLessThan(300);
      await createUser(t.admin, 'root', username, { password: PASSWORD });
      expect((await t.admin.request('PUT', `/realms/root/users/${username}/roles/${encodeURIComponent(role)}`)).statusCode).toBeLessThan(300);
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const consoleUrl = () => `${t.baseUrl}/admin/console`;
  const rootIssuer = () => `${t.baseUrl}/oauth2`;

  /** Signs in from the console's first screen, through root's sign-in and consent pages, back to the console's realm list. */
  async function signInAs(page: Page, username: string): Promise<void> {
    await page.goto(consoleUrl());
    const [request] = await Promise.all([
      page.waitForRequest((sent) => sent.url().startsWith(`${rootIssuer()}/authorize?`)),
      page.waitForURL(startsWith(`${rootIssuer()}/login?`)),
      page.getByRole('button', { name: 'Sign in with realmgate' }).click(),
    ]);
    const authorize = new URL(request.url());
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: 'realmgate-console',
      redirect_uri: `${t.baseUrl}/admin/console/callback`,
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: `${t.baseUrl}/admin`,
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await signIn(page, username, PASSWORD, (url) => url.pathname.endsWith('/consent') || url.pathname === '/admin/console');
    if (new URL(page.url()).pathname.endsWith('/consent')) {
      await Promise.all([page.waitForURL(startsWith(consoleUrl())), page.locator('button[name=decision][value=allow]').click()]);
    }
    await page.getByRole('heading', { name: 'Realms', exact: true }).waitFor();
    // The code and state are gone from the address bar and the history.
    expect(page.url()).toBe(consoleUrl());
  }

  /** What the console keeps where a script of another tab, or a later visitor, could read it. */
  const stored = (page: Page) =>
    page.evaluate(() => {
      const g = globalThis as unknown as { localStorage: Storage; sessionStorage: Storage; document: { cookie: string } };
      return { local: g.localStorage.length, session: g.sessionStorage.length, cookie: g.document.cookie };
    });

  /** The bearer tokens the console sends while it shows the view again. */
  const tokensSent = (page: Page) =>
    page.evaluate(async () => {
      const captured: string[] = [];
      const original = globalThis.fetch;
      globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        const header = new Headers(init?.headers).get('authorization');
        if (header) captured.push(header.slice('Bearer '.length));
        return original(input, init);
      };
      (globalThis as unknown as { dispatchEvent: (event: Event) => void }).dispatchEvent(new Event('hashchange'));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      globalThis.fetch = original;
      return captured;
    });

  const noProblems = (problems: Problems) => expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });

  it('signs a realm admin in with the code flow and PKCE, shows their one realm, and lets them change it', async () => {
    const { page, problems, context } = await watchedContext(browser, { javaScriptEnabled: true });
    await signInAs(page, 'team-admin');
    const realms = page.getByRole('table', { name: 'Realms' });
    await expect(realms.getByRole('link').allTextContents()).resolves.toEqual([REALM]);
    expect(await stored(page)).toEqual({ local: 0, session: 0, cookie: '' });
    // Only realmgate-admin creates realms: the form's button says why it is disabled.
    const create = page.getByRole('button', { name: 'Create realm' });
    expect(await create.isDisabled()).toBe(true);
    expect(await create.getAttribute('title')).toBe('Not allowed: only realmgate-admin creates realms.');

    await page.getByRole('link', { name: REALM, exact: true }).click();
    await page.getByRole('navigation', { name: 'Realm' }).getByRole('link', { name: 'Clients', exact: true }).click();
    const edit = page.getByRole('button', { name: 'Edit shop', exact: true });
    await edit.waitFor();
    expect(await edit.isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create client' }).isEnabled()).toBe(true);
    // The settings: theirs to change, not the realm to delete.
    await page.getByRole('navigation', { name: 'Realm' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save settings' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: `Delete ${REALM}` }).isDisabled()).toBe(true);

    // The token lives in the page's memory alone: a reload forgets it.
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with realmgate' }).waitFor();
    expect(await stored(page)).toEqual({ local: 0, session: 0, cookie: '' });
    noProblems(problems);
    await context.close();
  });

  it('shows a viewer every change disabled with its reason, and signs out: the token revoked, the root session ended', async () => {
    const { page, problems, context } = await watchedContext(browser, { javaScriptEnabled: true });
    await signInAs(page, 'team-viewer');
    await page.getByRole('link', { name: REALM, exact: true }).click();
    await page.getByRole('navigation', { name: 'Realm' }).getByRole('link', { name: 'Clients', exact: true }).click();
    const edit = page.getByRole('button', { name: 'Edit shop', exact: true });
    await edit.waitFor();
    const reason = `Not allowed: your roles give read-only access to the realm ${REALM}.`;
    for (const button of [edit, page.getByRole('button', { name: 'Delete shop', exact: true }), page.getByRole('button', { name: 'Create client' })]) {
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toBe(reason);
    }
    const enabledChanges = await page.locator('#view [data-operation]:not([disabled])').count();
    expect(enabledChanges).toBe(0);

    // The access token the console holds works until the sign-out revokes the grant.
    const [token] = await tokensSent(page);
    expect(token).toBeTruthy();
    expect((await fetch(`${t.baseUrl}/admin/realms`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    await page.getByRole('button', { name: /^Sign out/ }).click();
    await page.getByRole('button', { name: 'Sign in with realmgate' }).waitFor();
    expect(page.url()).toBe(consoleUrl());
    expect((await fetch(`${t.baseUrl}/admin/realms`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    // The root session ended too: signing in again asks for the password.
    await Promise.all([page.waitForURL(startsWith(`${rootIssuer()}/`)), page.getByRole('button', { name: 'Sign in with realmgate' }).click()]);
    await page.getByLabel('Password').waitFor();
    noProblems(problems);
    await context.close();
  });

  it('refreshes the access token before it expires, and keeps working with the new one', async () => {
    // Root's access tokens live 4 s here: the console refreshes at half their life.
    expect((await t.admin.request('PATCH', '/realms/root', { settings: { access_token_lifetime: 4 } })).statusCode).toBe(200);
    const { page, problems, context } = await watchedContext(browser, { javaScriptEnabled: true });
    await signInAs(page, 'team-admin');
    const [first] = await tokensSent(page);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const [second] = await tokensSent(page);
    expect(first).toBeTruthy();
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    // The new token works; the console still shows the realm list, no message of an ended session.
    expect((await fetch(`${t.baseUrl}/admin/realms`, { headers: { authorization: `Bearer ${second}` } })).status).toBe(200);
    await expect(page.getByRole('table', { name: 'Realms' }).getByRole('link').allTextContents()).resolves.toEqual([REALM]);
    expect(await page.locator('#messages [role=alert]').count()).toBe(0);
    noProblems(problems);
    await context.close();
  });
});
