import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { Upstream, addProvider, callbackOf } from '../identity-providers/support.js';
import { type CallbackServer, browserSkipReason, clickAndWait, closeCallbackServer, expectFits, launchChromium, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * Sign-in through another OpenID provider (CONTRACT.md §10) in a real Chromium, at a phone's
 * width and a desktop's: the realm's sign-in page offers the provider's button, the person
 * signs in and consents on node-oidc-provider's own pages, comes back, and the client gets a
 * code whose ID token names the person made just in time; their account page then shows the
 * linked provider. After a password, the provider confirms only the person's own linked
 * account (CONTRACT.md §8): another is refused, until the person links it on their account page.
 */
const skipReason = browserSkipReason('test/browser/brokered-sign-in.test.ts');
const REALM = 'federated';

describe.skipIf(skipReason !== undefined)(`sign-in through another provider in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let upstream: Upstream;
  let browser: Browser;
  let callback: CallbackServer;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    t = await startTestApp({ listen: true, outboundAllow: ['127.0.0.1'] });
    // The upstream's client is registered with the callback on the realm's BASE_URL, known once the app listens.
    upstream = await Upstream.start([callbackOf(REALM, 'up', t.baseUrl)], { interactionPages: true });
    browser = await launchChromium();
    await t.admin.createRealm(REALM, { allow_consent_bypass: true });
    await addProvider(t, REALM, upstream.issuer);
    clientId = (
      await t.admin.createClient(REALM, {
        client_type: 'public',
        redirect_uris: [callback.redirectUri],
        grant_types: ['authorization_code'],
        scope: 'openid profile email',
        skip_consent: true,
      })
    ).client_id;
    issuer = `${t.baseUrl}/oauth2/${REALM}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await upstream?.close();
    await closeCallbackServer(callback);
  });

  it.each([
    { width: 390, height: 844, javaScript: true },
    { width: 1280, height: 800, javaScript: true },
    { width: 390, height: 844, javaScript: false },
  ])('signs in a new person through node-oidc-provider at $width px (JavaScript $javaScript)', async ({ width, height, javaScript }) => {
    const subject = `up-${randomBytes(4).toString('hex')}`;
    const username = `mary-${randomBytes(3).toString('hex')}`;
    upstream.accounts.set(subject, { preferred_username: username, email: `${username}@corp.example`, email_verified: true, name: 'Mary Somerville' });

    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: javaScript });
    // The upstream's development pages import a web font: answered empty here, as this machine has no way out.
    await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }));
    try {
      await page.setViewportSize({ width, height });
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: callback.redirectUri,
        scope: 'openid profile email',
        state: 'brokered',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${issuer}/authorize?${query}`);
      await expect(page.locator('button[name=provider][value=up]').isVisible()).resolves.toBe(true);
      await expectFits(page);

      // At the upstream: its sign-in page, then its consent page.
      await clickAndWait(page, 'Sign in with Upstream Corp', startsWith(`${upstream.issuer}/interaction/`));
      await expect(page.locator('input[name=login]').isVisible()).resolves.toBe(true);
      await page.locator('input[name=login]').fill(subject);
      await page.locator('input[name=password]').fill('any password the upstream checks');
      const signInPage = page.url();
      await clickAndWait(page, 'Sign-in', (url) => url.href.startsWith(`${upstream.issuer}/interaction/`) && url.href !== signInPage);
      await expect(page.getByRole('button', { name: 'Continue' }).isVisible()).resolves.toBe(true);
      await clickAndWait(page, 'Continue', (url) => `${url.origin}${url.pathname}` === callback.redirectUri);

      const back = new URL(page.url());
      expect(back.searchParams.get('state')).toBe('brokered');
      expect(back.searchParams.get('iss')).toBe(issuer);
      const response = await fetch(`${issuer}/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: callback.redirectUri, client_id: clientId, code_verifier: verifier }),
      });
      const tokens = (await response.json()) as { id_token: string };
      expect(response.status, JSON.stringify(tokens)).toBe(200);
      const claims = decodeJwt(tokens.id_token);
      expect(claims).toMatchObject({ iss: issuer, aud: clientId, preferred_username: username, email: `${username}@corp.example`, amr: ['fed'] });

      // The person the broker made, as the admin API shows them.
      const person = await t.admin.request('GET', `/realms/${REALM}/users/${username}`);
      expect(person.statusCode, person.body).toBe(200);
      expect(person.json()).toMatchObject({ sub: claims.sub, username, identities: [{ provider: 'up', subject }] });

      // The account page of the same browser's session shows the linked provider.
      await page.goto(`${issuer}/account`);
      await expect(page.title()).resolves.toBe(`Your account · ${REALM}`);
      const linked = page.locator('section.account', { has: page.getByRole('heading', { name: 'Linked accounts' }) });
      await expect(linked.locator('li.identity').innerText()).resolves.toMatch(/^Upstream Corp: linked \S.*\d{4}.*\d{1,2}:\d\d/);
      await expect(linked.getByRole('button', { name: /^Unlink/ }).count()).resolves.toBe(0);
      await expect(linked.locator('p.only-way').isVisible()).resolves.toBe(true);
      await expectFits(page);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
  /** At the upstream's own pages as `subject` (its sign-in and consent, when it asks), until it sends the browser back to `back`. */
  async function throughUpstream(page: Page, subject: string, back: (url: URL) => boolean): Promise<void> {
    for (let step = 0; step < 3 && page.url().startsWith(upstream.issuer); step++) {
      const here = page.url();
      const leaves = (url: URL) => back(url) || (url.href.startsWith(upstream.issuer) && url.href !== here);
      if (await page.locator('input[name=login]').isVisible()) {
        await page.locator('input[name=login]').fill(subject);
        await page.locator('input[name=password]').fill('any password the upstream checks');
        await clickAndWait(page, 'Sign-in', leaves);
      } else {
        await clickAndWait(page, 'Continue', leaves);
      }
    }
    expect(back(new URL(page.url())), page.url()).toBe(true);
  }

  /** The password form of a sign-in page that also offers the provider's button. */
  async function passwordStep(page: Page, username: string, password: string, next: (url: URL) => boolean): Promise<void> {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(next), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  it("after a password, refuses an upstream account not linked to the person; linked on the account page, it then confirms them", async () => {
    const journey = await t.admin.request('PUT', `/realms/${REALM}/journeys/pw-fed`, {
      start: 'pw',
      nodes: { pw: { type: 'password', next: { success: 'idp' } }, idp: { type: 'identity_provider', provider: 'up', next: { success: 'done' } } },
    });
    expect(journey.statusCode, journey.body).toBe(201);
    const client = await t.admin.createClient(REALM, {
      client_type: 'public',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
      skip_consent: true,
      journey: 'pw-fed',
    });
    const username = `vera-${randomBytes(3).toString('hex')}`;
    const password = 'correct horse battery staple';
    expect((await t.admin.request('POST', `/realms/${REALM}/users`, { username, password })).statusCode).toBe(201);
    const subject = `up-${randomBytes(4).toString('hex')}`;
    upstream.accounts.set(subject, { preferred_username: `${username}-up` });
    const atClient = (url: URL) => `${url.origin}${url.pathname}` === callback.redirectUri;
    const identities = async () => ((await t.admin.request('GET', `/realms/${REALM}/users/${username}`)).json() as { identities: unknown[] }).identities;

    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }));
    try {
      const authorize = async (withPassword: boolean) => {
        const query = new URLSearchParams({ client_id: client.client_id, response_type: 'code', redirect_uri: callback.redirectUri, scope: 'openid', state: 'linked', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
        await page.goto(`${issuer}/authorize?${query}`);
        if (withPassword) await passwordStep(page, username, password, (url) => url.pathname.endsWith('/login') && url.search.includes('transaction='));
        await expect(page.locator('button[name=provider][value=up]').isVisible()).resolves.toBe(true);
        // The upstream asks again only what its own session does not know yet.
        await clickAndWait(page, 'Sign in with Upstream Corp', (url) => url.href.startsWith(upstream.issuer) || atClient(url));
        await throughUpstream(page, subject, atClient);
        return new URL(page.url()).searchParams;
      };

      // The password and an upstream account that is not the person's: refused, and nothing linked.
      const refused = await authorize(true);
      expect([refused.get('error'), refused.get('code')]).toEqual(['access_denied', null]);
      expect(await identities()).toEqual([]);

      // The person links it on their account page (a fresh sign-in there), through the upstream's pages.
      await page.goto(`${issuer}/account`);
      await passwordStep(page, username, password, (url) => url.pathname.endsWith('/account'));
      const atAccount = (url: URL) => url.href.startsWith(`${issuer}/account`);
      await clickAndWait(page, 'Link an account at Upstream Corp', (url) => url.href.startsWith(upstream.issuer) || atAccount(url));
      await throughUpstream(page, subject, atAccount);
      await expect(page.locator('p.notice').innerText()).resolves.toBe('Your account at Upstream Corp is linked: you can sign in with it now.');
      expect(await identities()).toEqual([{ provider: 'up', subject }]);

      // Now the same journey passes: the account page's session passed the password, so only the
      // upstream step is asked (a step-up), and the linked account is the person's.
      const passed = await authorize(false);
      expect(passed.get('code')).toEqual(expect.any(String));
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
