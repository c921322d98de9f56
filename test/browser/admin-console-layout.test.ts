import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { type Problems, browserSkipReason, expectReadableInBothSchemes, launchChromium, watchedContext } from './support.js';

/**
 * The admin console's main tasks walked in Chromium on a phone (390 px) and a desktop (1280 px):
 * a realm made and its settings changed, a client made (its snippets shown) and opened, a person
 * made and opened, a role, a scope's claim rows, the journeys and the events. At each step, in the light and the dark
 * scheme, nothing is wider than the window and every text reaches WCAG AA contrast (the
 * measurement of layout-contrast.test.ts); the settings come in their labelled sections; the
 * tabs fit (a menu on the phone); no text names a file.
 */
const skipReason = browserSkipReason('test/browser/admin-console-layout.test.ts');

const PHONE = 390;
const DESKTOP = 1280;
const LONG_NAME = 'Quarterly-Procurement-and-Invoicing-Dashboard-of-the-Northern-Region-Subsidiaries';
const LONG_REDIRECT = 'https://procurement.northwind.example/oauth/callback/with/a/rather/long/path/that/does/not/break';
const SECTIONS = ['Sign-in', 'Tokens', 'Sessions', 'Registration', 'Branding', 'Limits', 'Profiles'];

describe.skipIf(skipReason !== undefined)(`the admin console's layout and contrast in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: { context: BrowserContext; page: Page; problems: Problems };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    admin = await watchedContext(browser, { javaScriptEnabled: true });
    await admin.page.goto(`${t.baseUrl}/admin/console`);
    await admin.page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await admin.page.getByRole('button', { name: 'Open the console' }).click();
    await admin.page.getByRole('table', { name: 'Realms' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const said = (page: Page, text: string) => page.locator('#messages p').filter({ hasText: text }).first().waitFor();

  /** The page as it is, in each scheme: no sideways scrolling, no box past the edges, AA contrast, no file named. */
  async function expectWellLaidOut(page: Page, name: string): Promise<void> {
    // A form's controls are disabled while its call runs (and drawn fainter): measured once it has ended.
    // A locator, not a function evaluated in the page: the console's CSP allows no eval.
    await page.locator('main :disabled').first().waitFor({ state: 'detached' });
    await expectReadableInBothSchemes(page, name);
    // A file a text names is one the repository has.
    const named = (await page.locator('body').innerText()).match(/[\w./-]+\.md\b/g) ?? [];
    expect(named.filter((file) => !existsSync(file)), `${name}: files named that the repository lacks`).toEqual([]);
  }

  /** Opens a tab of the realm: on the phone through the menu that names the open one. */
  async function openTab(page: Page, realm: string, label: string, path: string): Promise<void> {
    const nav = page.getByRole('navigation', { name: 'Realm' });
    if (page.viewportSize()!.width <= PHONE) await nav.locator('summary').click();
    await Promise.all([page.waitForURL(`${t.baseUrl}/admin/console#/realms/${realm}/${path}`), nav.getByRole('link', { name: label, exact: true }).click()]);
    // The tab's view is drawn once its link is the current one (on the phone, in the closed menu).
    await page.locator('nav a[aria-current=page]').filter({ hasText: new RegExp(`^${label}$`) }).first().waitFor({ state: 'attached' });
  }

  /** The tabs fit: two rows at most on a desktop; on a phone a single menu naming the open tab. */
  async function expectTabsFit(page: Page, open: string): Promise<void> {
    const nav = page.getByRole('navigation', { name: 'Realm' });
    if (page.viewportSize()!.width <= PHONE) {
      await expect(nav.locator('summary').textContent()).resolves.toBe(open);
      const box = (await nav.boundingBox())!;
      expect(box.height).toBeLessThan(60);
      return;
    }
    const rows = await nav.getByRole('link').evaluateAll((links) => new Set(links.map((link) => Math.round(link.getBoundingClientRect().top))).size);
    expect(rows).toBeLessThanOrEqual(2);
  }

  for (const width of [PHONE, DESKTOP]) {
    it(`walks the main tasks at ${width} px with no sideways scrolling and AA contrast in both schemes`, async () => {
      const { page, problems } = admin;
      const realm = `walk-${width}`;
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.baseUrl}/admin/console#/realms`);
      await page.getByRole('table', { name: 'Realms' }).waitFor();
      await expectWellLaidOut(page, 'realms');

      // A realm, and its settings in their sections, each with a line of help.
      await page.getByRole('form', { name: 'New realm' }).getByLabel('Realm name').fill(realm);
      await Promise.all([page.waitForURL(`${t.baseUrl}/admin/console#/realms/${realm}/settings`), page.getByRole('button', { name: 'Create realm' }).click()]);
      const settings = page.getByRole('form', { name: 'Realm settings' });
      await settings.waitFor();
      const headings = await settings.locator('section.settings-section > h3').allTextContents();
      expect(headings.slice(0, SECTIONS.length)).toEqual(SECTIONS);
      for (const section of SECTIONS) {
        const region = settings.getByRole('region', { name: section, exact: true });
        await expect(region.locator('p.help').textContent()).resolves.toMatch(/^[A-Z].{30,}\.$/);
      }
      await settings.getByRole('region', { name: 'Tokens' }).getByLabel(/^Access token lifetime/).fill('900');
      await settings.getByRole('region', { name: 'Branding' }).getByLabel(/^Display name/).fill(LONG_NAME);
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await said(page, 'Settings saved: access_token_lifetime, display_name.');
      await expectTabsFit(page, 'Settings');
      await expectWellLaidOut(page, 'settings');

      // A client: its secret and snippets, then the client opened by its link.
      await openTab(page, realm, 'Clients', 'clients');
      const create = page.getByRole('form', { name: 'New client' });
      await create.getByRole('textbox', { name: /^Client ID(?! there)/ }).fill('dashboard');
      await create.getByRole('textbox', { name: 'Name', exact: true }).fill(LONG_NAME);
      await create.getByRole('textbox', { name: /^Redirect URIs/ }).fill(LONG_REDIRECT);
      await create.getByRole('button', { name: 'Create client' }).click();
      await said(page, 'Client dashboard created.');
      await page.getByRole('region', { name: 'Connect dashboard' }).waitFor();
      await expectTabsFit(page, 'Clients');
      await expectWellLaidOut(page, 'client created');
      await page.getByRole('table', { name: 'Clients' }).getByRole('link', { name: 'dashboard', exact: true }).click();
      await page.getByRole('form', { name: 'Edit client dashboard' }).waitFor();
      await expectWellLaidOut(page, 'client');

      // A person, opened.
      await openTab(page, realm, 'Users', 'users');
      const newUser = page.getByRole('form', { name: 'New user' });
      await newUser.getByLabel('New username').fill('walker');
      await newUser.getByLabel(/^Password/).fill('correct horse battery');
      await newUser.getByLabel('Full name').fill(LONG_NAME);
      await newUser.getByLabel('Email', { exact: true }).fill('walker@northwind.example');
      await newUser.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('region', { name: 'User walker' }).waitFor();
      await expectWellLaidOut(page, 'user');

      // A role, the journeys, the events.
      await openTab(page, realm, 'Roles', 'roles');
      const saveRole = page.getByRole('form', { name: 'Save a role' });
      await saveRole.getByLabel(/^Role name/).fill('invoices:approve');
      await saveRole.getByLabel(/^Description/).fill('Approve the invoices of every region');
      await saveRole.getByRole('button', { name: /^Save/ }).click();
      await page.getByRole('table', { name: 'Roles' }).getByText('invoices:approve', { exact: true }).waitFor();
      await expectWellLaidOut(page, 'roles');
      await openTab(page, realm, 'Scopes', 'scopes');
      await page.getByRole('form', { name: 'New scope' }).getByRole('button', { name: 'Add a claim' }).click();
      await page.getByRole('group', { name: 'Claim 1', exact: true }).waitFor();
      await expectWellLaidOut(page, 'scopes');
      await openTab(page, realm, 'Journeys', 'journeys');
      await page.getByRole('form', { name: /journey/i }).first().waitFor();
      await expectWellLaidOut(page, 'journeys');
      await openTab(page, realm, 'Events', 'events');
      await page.getByRole('table', { name: 'Audit events' }).waitFor();
      await expectTabsFit(page, 'Events');
      await expectWellLaidOut(page, 'events');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    }, 120_000);
  }
});
