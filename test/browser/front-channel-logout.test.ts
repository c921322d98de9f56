import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { type CallbackServer, browserSkipReason, closeCallbackServer, launchChromium, signIn, startCallbackServer, startsWith, watchedContext } from './support.js';

/**
 * Front-Channel Logout 1.0 in a real Chromium (CONTRACT.md §12): after an RP-initiated logout,
 * the end-session page frames the front-channel logout page of each client of the session (and
 * only theirs), each on its own origin with `iss` and `sid`, under the page's CSP, and then goes
 * on to the post-logout redirect URI: by script, or by the person's link without it.
 */
const skipReason = browserSkipReason('test/browser/front-channel-logout.test.ts');
const PASSWORD = 'correct horse battery';

describe.skipIf(skipReason !== undefined)(`front-channel logout in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let issuer: string;
  /** Each client's redirect URI and front-channel logout page share a server of its own origin. */
  const servers: Record<'a' | 'b' | 'unused' | 'after', CallbackServer> = {} as never;
  const clients: Record<'a' | 'b' | 'unused', string> = {} as never;

  beforeAll(async () => {
    for (const name of ['a', 'b', 'unused', 'after'] as const) servers[name] = await startCallbackServer();
    t = await startTestApp({ listen: true });
    issuer = `${t.baseUrl}/oauth2`;
    for (const username of ['erin', 'frank']) {
      const created = await t.admin.request('POST', '/realms/root/users', { username, password: PASSWORD });
      expect(created.statusCode, created.body).toBe(201);
    }
    for (const name of ['a', 'b', 'unused'] as const) {
      const client = await t.admin.createClient('root', {
        client_type: 'public',
        redirect_uris: [servers[name].redirectUri],
        post_logout_redirect_uris: [servers.after.redirectUri],
        grant_types: ['authorization_code'],
        scope: 'openid',
        frontchannel_logout_uri: servers[name].redirectUri.replace('/callback', '/frontchannel-logout?tenant=x'),
      });
      clients[name] = client.client_id;
    }
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    for (const server of Object.values(servers)) await closeCallbackServer(server);
  });

  /** Signs in for client a, then b (the session's two clients); `unused` gets nothing in it. */
  async function signedInToTwo(page: Page, username: string): Promise<void> {
    const authorize = (client: 'a' | 'b') =>
      `${issuer}/authorize?${new URLSearchParams({
        client_id: clients[client],
        response_type: 'code',
        redirect_uri: servers[client].redirectUri,
        scope: 'openid',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })}`;
    // A public client is asked for consent (skip_consent is for confidential ones).
    const allowed = async (client: 'a' | 'b') => {
      if (page.url().startsWith(`${issuer}/consent?`)) {
        await Promise.all([page.waitForURL(startsWith(servers[client].redirectUri)), page.getByRole('button', { name: 'Allow' }).click()]);
      }
      expect(page.url()).toMatch(startsWith(servers[client].redirectUri));
    };
    await page.goto(authorize('a'));
    await signIn(page, username, PASSWORD, (url) => url.href.startsWith(servers.a.redirectUri) || url.pathname.endsWith('/consent'));
    await allowed('a');
    await page.goto(authorize('b'));
    await allowed('b');
  }

  const endSessionUrl = (state: string) =>
    `${issuer}/connect/endSession?${new URLSearchParams({ client_id: clients.a, post_logout_redirect_uri: servers.after.redirectUri, state })}`;

  /** The front-channel logout requests a server received: their iss and sid. */
  const logoutsAt = (name: 'a' | 'b' | 'unused') =>
    servers[name].hits
      .filter((hit) => hit.startsWith('/frontchannel-logout?'))
      .map((hit) => new URLSearchParams(hit.slice(hit.indexOf('?') + 1)))
      .map((query) => ({ tenant: query.get('tenant'), iss: query.get('iss'), sid: query.get('sid') }));

  it('frames each client of the session with iss and sid, then goes on to the post-logout redirect by script', async () => {
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      await signedInToTwo(page, 'erin');
      await page.goto(endSessionUrl('by-script'));
      await Promise.all([page.waitForURL(startsWith(servers.after.redirectUri), { timeout: 10_000 }), page.getByRole('button', { name: 'Sign out' }).click()]);
      expect(new URL(page.url()).searchParams.get('state')).toBe('by-script');
      const [a, b] = [logoutsAt('a'), logoutsAt('b')];
      expect(a).toHaveLength(1);
      expect(b).toHaveLength(1);
      expect(a[0]).toMatchObject({ tenant: 'x', iss: issuer });
      expect(a[0]!.sid).toMatch(/^[0-9a-f-]{36}$/);
      expect(b[0]!.sid).toBe(a[0]!.sid);
      expect(logoutsAt('unused')).toHaveLength(0);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('without JavaScript the frames still load, and the Continue link goes on', async () => {
    const before = { a: logoutsAt('a').length, b: logoutsAt('b').length };
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: false });
    try {
      await signedInToTwo(page, 'frank');
      await page.goto(endSessionUrl('by-link'));
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign out' }).click()]);
      await expect(page.title()).resolves.toMatch(/^Signed out/);
      await expect(page.locator('iframe').count()).resolves.toBe(2);
      await expect.poll(() => logoutsAt('a').length + logoutsAt('b').length).toBe(before.a + before.b + 2);
      await Promise.all([page.waitForURL(startsWith(servers.after.redirectUri)), page.getByRole('link', { name: 'Continue' }).click()]);
      expect(new URL(page.url()).searchParams.get('state')).toBe('by-link');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 60_000);
});
