import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { createUser, passwordTokens } from '../support/users.js';
import { lowestContrast, measurePage } from './page-metrics.js';
import { browserSkipReason, launchChromium, watchedContext } from './support.js';

/**
 * The operator actions on a person's page of the admin console (CONTRACT.md §16), in Chromium at
 * a desktop's width and a phone's: a password reset mailed (the mail arrives), a refusal shown
 * with the server's reason, a passkey deleted and a consent withdrawn once confirmed (the
 * client's token stops working); the page wider than neither window, its texts at WCAG AA contrast.
 */
const skipReason = browserSkipReason('test/browser/console-operator-actions.test.ts');
const REALM = `care-${randomBytes(3).toString('hex')}`;

describe.skipIf(skipReason !== undefined)(`operator actions in the admin console${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let mail: TestMailServer;
  let browser: Browser;

  beforeAll(async () => {
    mail = await startMailServer();
    [t, browser] = await Promise.all([startTestApp({ listen: true, mail: mail.settings }), launchChromium()]);
    await t.admin.createRealm(REALM, { password_reset: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mail?.close();
  });

  async function openPerson(page: Page, username: string): Promise<void> {
    await page.goto(`${t.baseUrl}/admin/console`);
    await page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('table', { name: 'Realms' }).waitFor();
    await page.goto(`${t.baseUrl}/admin/console#/realms/${REALM}/users`);
    await page.getByRole('button', { name: `Open ${username}`, exact: true }).click();
    await page.getByRole('region', { name: `Support for ${username}` }).waitFor();
  }
  const said = (page: Page, text: string) => page.locator('#messages p').filter({ hasText: text }).waitFor();

  it('gives each person a URL: a deep link opens them, the back button shows the list again', async () => {
    await createUser(t.admin, REALM, 'deep');
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      await openPerson(page, 'deep');
      expect(page.url()).toBe(`${t.baseUrl}/admin/console#/realms/${REALM}/users/deep`);
      await page.reload();
      await page.getByRole('region', { name: 'User deep' }).waitFor();
      await page.goto(`${t.baseUrl}/admin/console#/realms/${REALM}/settings`);
      await page.getByRole('form', { name: 'Realm settings' }).waitFor();
      await page.goBack();
      await page.getByRole('region', { name: 'User deep' }).waitFor();
      await page.goBack();
      await page.getByRole('table', { name: 'People' }).waitFor();
      expect(await page.getByRole('region', { name: 'User deep' }).count()).toBe(0);
      expect(problems.pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([1280, 390])('at %i px: mails, removes a passkey and withdraws a consent, each asked first', async (width) => {
    const username = `ann${width}`;
    const user = await createUser(t.admin, REALM, username, { claims: { email: `${username}@example.com` } });
    const client = await t.admin.createClient(REALM, { client_id: `shop${width}`, grant_types: ['password', 'refresh_token'], scope: 'openid' });
    const service = { clientId: client.client_id, secret: client.client_secret as string };
    const tokens = await passwordTokens(t.app, REALM, service, user, 'openid');
    await t.store.consents.grant(REALM, user.sub, client.client_id, ['openid']);
    await t.store.passkeys.create({ credentialId: randomBytes(16), realm: REALM, userId: user.sub, publicKey: randomBytes(77), counter: 0, transports: [], backedUp: false, name: 'Work laptop' }, 10);
    await createUser(t.admin, REALM, `nomail${width}`);

    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      await page.setViewportSize({ width, height: 900 });
      await openPerson(page, username);
      const support = page.getByRole('region', { name: `Support for ${username}` });

      await support.getByRole('button', { name: 'Send password reset' }).click();
      await said(page, `A password reset link is on its way to ${username}.`);
      expect((await mail.nextMail(`${username}@example.com`)).text).toContain('/reset?ticket=');

      const metrics = await measurePage(page);
      expect(metrics.scrollWidth, 'no sideways scrolling').toBeLessThanOrEqual(metrics.innerWidth);
      expect(metrics.unreadable).toEqual([]);
      const lowest = lowestContrast(metrics);
      if (lowest) expect(lowest.ratio, JSON.stringify(lowest)).toBeGreaterThanOrEqual(lowest.required);

      await support.getByRole('button', { name: 'Delete the passkey Work laptop' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete', exact: true }).click();
      await said(page, `The passkey Work laptop of ${username} is deleted.`);
      expect((await t.admin.request('GET', `/realms/${REALM}/users/${username}/passkeys`)).json()).toEqual({ passkeys: [] });

      const support2 = page.getByRole('region', { name: `Support for ${username}` });
      await support2.getByRole('button', { name: `Revoke the consent to ${client.client_id}` }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke', exact: true }).click();
      await said(page, `What ${username} allowed ${client.client_id} is withdrawn`);
      expect((await t.admin.request('GET', `/realms/${REALM}/users/${username}/consents`)).json()).toEqual({ consents: [] });
      const refreshed = await t.app.inject({
        method: 'POST', url: `/oauth2/${REALM}/access_token`,
        headers: { authorization: `Basic ${Buffer.from(`${service.clientId}:${service.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }).toString(),
      });
      expect(refreshed.statusCode).toBe(400);

      // A person without an address: the server's reason is shown as an alert.
      await page.getByRole('button', { name: `Open nomail${width}`, exact: true }).click();
      await page.getByRole('region', { name: `Support for nomail${width}` }).getByRole('button', { name: 'Send verification mail' }).click();
      const refusal = page.locator('#messages p[role=alert]');
      await refusal.filter({ hasText: 'the person has no email address' }).waitFor();
      expect(problems.pageErrors).toEqual([]);
      expect(problems.console.filter((line) => !line.includes('status of 409'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
