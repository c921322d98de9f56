import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, publicClient, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';

/** The 429 page, with a Retry-After of whole seconds; never a redirect. */
function expectLimitedPage(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(429);
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.headers.location).toBeUndefined();
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(response.body).toContain('Too many attempts');
}

/**
 * `rate_limit_authorize`: the rows a browser makes without signing in (sign-in transactions,
 * passkey challenges) per address and minute, counted in the statement that writes them.
 */
describe('rate_limit_authorize', () => {
  let t: TestApp;
  let clientId: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('flood', { rate_limit_authorize: 3 });
    clientId = await publicClient(t, 'flood', 'openid profile');
  });
  afterAll(() => t.close());

  const rows = async (table: 'authorization_transactions' | 'webauthn_challenges', realm: string): Promise<number> =>
    (await t.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE realm = $1`, [realm])).rows[0]!.n;

  const browserAt = (remoteAddress: string): TestBrowser => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    browser.remoteAddress = remoteAddress;
    return browser;
  };

  it('answers a flood of GET /authorize from one address with the 429 page past the limit, and stores nothing more', async () => {
    const browser = browserAt('198.51.100.40');
    for (let i = 0; i < 3; i++) {
      const started = await authorize(browser, 'flood', codeRequest(clientId));
      expect(redirectPath(started)).toBe(`${realmPath('flood')}/login`);
    }
    for (let i = 0; i < 5; i++) expectLimitedPage(await authorize(browser, 'flood', codeRequest(clientId)));
    expect(await rows('authorization_transactions', 'flood')).toBe(3);

    // Another address goes on; one of the same IPv6 /64 shares the budget of the first.
    expect(redirectPath(await authorize(browserAt('198.51.100.41'), 'flood', codeRequest(clientId)))).toBe(`${realmPath('flood')}/login`);
    for (let i = 0; i < 3; i++) expect((await authorize(browserAt(`2001:db8:77:1::${i + 1}`), 'flood', codeRequest(clientId))).statusCode).toBe(303);
    expectLimitedPage(await authorize(browserAt('2001:db8:77:1::ff'), 'flood', codeRequest(clientId)));
    expect(await rows('authorization_transactions', 'flood')).toBe(7);
  });

  it('counts the pages that begin a sign-in without one, such as the account page', async () => {
    await t.admin.createRealm('flood-account', { rate_limit_authorize: 2 });
    const browser = browserAt('198.51.100.42');
    const url = `${realmPath('flood-account')}/account`;
    expect((await browser.get(url)).statusCode).toBe(303);
    expect((await browser.get(url)).statusCode).toBe(303);
    expectLimitedPage(await browser.get(url));
    expect(await rows('authorization_transactions', 'flood-account')).toBe(2);
  });

  it('counts the sign-in pages of a passkey realm, each of which stores a challenge', async () => {
    await t.admin.createRealm('flood-passkeys', { authentication: ['passkey'], rate_limit_authorize: 4 });
    const passkeyClient = await publicClient(t, 'flood-passkeys', 'openid');
    const browser = browserAt('198.51.100.43');
    const login = location(await authorize(browser, 'flood-passkeys', codeRequest(passkeyClient, { scope: 'openid' })));
    for (let i = 0; i < 3; i++) expect((await browser.get(login)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expectLimitedPage(await browser.get(login));
    expect(await rows('webauthn_challenges', 'flood-passkeys')).toBe(3);
  });

  it('is off with null', async () => {
    await t.admin.createRealm('no-flood-limit', { rate_limit_authorize: null });
    const open = await publicClient(t, 'no-flood-limit', 'openid profile');
    const browser = browserAt('198.51.100.44');
    for (let i = 0; i < 5; i++) expect((await authorize(browser, 'no-flood-limit', codeRequest(open))).statusCode).toBe(303);
  });
});
