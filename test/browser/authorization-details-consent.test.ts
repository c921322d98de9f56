import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT, PAYMENT_TYPES } from '../support/authorization-details.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { pkce } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, expectFits, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

const skipReason = browserSkipReason('test/browser/authorization-details-consent.test.ts');
const PASSWORD = 'correct horse battery';
/** A payee name of one long word: it must wrap, not push the page sideways. */
const LONG_PAYEE = `Merchant_${'X'.repeat(60)}`;

/** What each language shows of the payment: its intro, the amount's number as the language writes it (spaces read as one), and no as a word. */
const EXPECTED = {
  en: { intro: 'In detail, it asks for:', sum: '1,234.5', no: 'no', allow: 'Allow' },
  de: { intro: 'Im Einzelnen verlangt sie:', sum: '1.234,5', no: 'nein', allow: 'Erlauben' },
  fr: { intro: 'En détail, elle demande', sum: '1 234,5', no: 'non', allow: 'Autoriser' },
} as const;

/**
 * The consent page of a rich authorization request (RFC 9396) in Chromium at 390 px, in each
 * language: each entry in words, nothing wider than the window, and the allowed entry in the
 * token response.
 */
describe.skipIf(skipReason !== undefined)(`the authorization details consent page in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true });
    const realm = await freshRealm(t, { authorization_details_types: PAYMENT_TYPES });
    issuer = `${t.baseUrl}${realmPath(realm)}`;
    const created = await t.admin.request('POST', `/realms/${realm}/users`, { username: 'carol', password: PASSWORD });
    expect(created.statusCode, created.body).toBe(201);
    const client = await t.admin.createClient(realm, {
      client_type: 'public',
      client_name: 'Payments App',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid',
      authorization_details_types: ['payment_initiation'],
    });
    clientId = client.client_id;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closeCallbackServer(callback);
  });

  it.each(Object.keys(EXPECTED) as Array<keyof typeof EXPECTED>)('shows the payment in words at 390 px in %s, and the token carries it', async (locale) => {
    const expected = EXPECTED[locale];
    const payment = { ...PAYMENT, creditorName: LONG_PAYEE };
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: clientId, response_type: 'code', redirect_uri: callback.redirectUri, scope: 'openid', state: `s-${locale}`,
      code_challenge: challenge, code_challenge_method: 'S256', ui_locales: locale, authorization_details: JSON.stringify([payment]),
    });
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${issuer}/authorize?${query}`);
      await page.locator('input[name=username]').fill('carol');
      await page.locator('input[name=password]').fill(PASSWORD);
      await Promise.all([page.waitForURL(/\/consent\?/), page.locator('button.primary').click()]);

      expect(await page.getAttribute('html', 'lang')).toBe(locale);
      const details = page.locator('ul.authorization-details');
      const text = (await details.innerText()).replace(/\s+/g, ' ');
      expect(await page.locator('main').innerText()).toContain(expected.intro);
      expect(text).toContain('Payment');
      expect(text).toContain(LONG_PAYEE);
      expect(text).toContain(expected.sum);
      expect(text).toContain(expected.no);
      expect(text).toContain('DE02100100109307118603');
      expect(text).not.toContain(PAYMENT.reference);
      await expectFits(page);
      const [scrolled, shown] = await details.evaluate((element): [number, number] => [(element as { scrollWidth: number }).scrollWidth, (element as { clientWidth: number }).clientWidth]);
      expect(scrolled).toBeLessThanOrEqual(shown);

      await Promise.all([page.waitForURL(startsWith(callback.redirectUri)), page.getByRole('button', { name: expected.allow }).click()]);
      const code = new URL(page.url()).searchParams.get('code')!;
      const response = await fetch(`${issuer}/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
      });
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body.authorization_details).toEqual([payment]);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 120_000);
});
