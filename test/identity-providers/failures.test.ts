import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, freePort, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { Upstream, UPSTREAM_CLIENT, addProvider, appClient, callbackOf, returnFromProvider, startAtProvider } from './support.js';

/**
 * What goes wrong in a sign-in through another provider ends on a page that says so in plain
 * words (CONTRACT.md §4, §10), never a 500 nor anything internal: a callback's state used
 * twice or unknown, the person cancelling at the provider, a provider that cannot be reached,
 * an ID token signed by a key the provider does not publish.
 */
const REALMS = ['replay', 'denied', 'wrong-keys'] as const;

let t: TestApp;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await Upstream.start(REALMS.map((realm) => callbackOf(realm, 'up')));
  upstream.accounts.set('up-1', { preferred_username: 'ada', email: 'ada@corp.example', email_verified: true });
  upstream.nextAccount = 'up-1';
  t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
  for (const realm of [...REALMS, 'down']) await t.admin.createRealm(realm);
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

/** A page of the browser flow that tells the person what happened: HTML, the status, the words, nothing internal. */
function expectPage(response: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, words: RegExp) {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(status);
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.body).toMatch(words);
  expect(response.body).not.toMatch(/Error:|at .*\.(ts|js):\d+|stack|ClientError|OutboundError|ECONNREFUSED/);
  expect(response.body).not.toContain(UPSTREAM_CLIENT.secret);
}

const usersOf = async (realm: string) => (await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE realm = $1', [realm])).rows[0]!.n;

describe('the callback\'s state', () => {
  it('works once: the same callback again is refused on a page, and so is a state never issued', async () => {
    await addProvider(t, 'replay', upstream.issuer);
    const clientId = await appClient(t, 'replay');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const started = await startAtProvider(browser, 'replay', clientId);
    const callback = await upstream.browse(location(started.response));
    expect((await returnFromProvider(browser, callback)).code).toEqual(expect.any(String));

    expectPage(await browser.get(callback), 400, /expired or was already completed/);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'a-state-nobody-issued');
    expectPage(await browser.get(forged.href), 400, /expired or was already completed/);
    expectPage(await browser.get(callbackOf('replay', 'up').replace('https://auth.test', '')), 400, /expired or was already completed/);
  });

  it('is refused at another provider\'s callback, and stays usable at its own', async () => {
    const clientId = await appClient(t, 'replay');
    await addProvider(t, 'replay', upstream.issuer, {}, 'other');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const started = await startAtProvider(browser, 'replay', clientId);
    const callback = await upstream.browse(location(started.response));
    expectPage(await browser.get(callback.replace('/broker/up/', '/broker/other/')), 400, /expired or was already completed/);
    expectPage(await browser.get(callback.replace('/broker/up/', '/broker/nobody/')), 400, /not available/);
    expect((await returnFromProvider(browser, callback)).code).toEqual(expect.any(String));
  });

  it('continues only in the browser that began the sign-in', async () => {
    const clientId = await appClient(t, 'replay');
    const started = await startAtProvider(new TestBrowser(t.app, t.baseUrl), 'replay', clientId);
    const callback = await upstream.browse(location(started.response));
    const other = await new TestBrowser(t.app, t.baseUrl).get(callback);
    expectPage(other, 400, /expired or was already completed/);
  });
});

describe('the person cancelling at the provider', () => {
  it('ends on a page that says the sign-in was cancelled, and makes nobody', async () => {
    await addProvider(t, 'denied', upstream.issuer);
    const clientId = await appClient(t, 'denied');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const started = await startAtProvider(browser, 'denied', clientId);
    const callback = await upstream.browseRefused(location(started.response));
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied');
    expectPage(await browser.get(callback), 403, /Signing in with Upstream Corp was cancelled or refused/);
    expect(await usersOf('denied')).toBe(0);
    const failed = (await t.admin.request('GET', '/realms/denied/events?type=sign_in.failed')).json() as { events: Array<{ details: Record<string, unknown> }> };
    expect(failed.events[0]?.details).toEqual(expect.objectContaining({ step: 'identity_provider', reason: 'denied' }));
  });
});

describe('a provider that cannot be reached', () => {
  it('shows the sign-in page again, saying so, and the password form still works', async () => {
    const closedPort = await freePort();
    await addProvider(t, 'down', `http://127.0.0.1:${closedPort}`);
    const clientId = await appClient(t, 'down');
    const browser = new TestBrowser(t.app, t.baseUrl);
    const started = await startAtProvider(browser, 'down', clientId);
    expectPage(started.response, 502, /Upstream Corp cannot be reached right now/);
    expect(started.response.body).toContain('name="password"');
  });

  it('is refused by the outbound fetcher when OUTBOUND_ALLOW does not list it: the same page', async () => {
    const guarded = await startTestApp();
    try {
      await guarded.admin.createRealm('down');
      await addProvider(guarded, 'down', upstream.issuer);
      const clientId = await appClient(guarded, 'down');
      const started = await startAtProvider(new TestBrowser(guarded.app, guarded.baseUrl), 'down', clientId);
      expectPage(started.response, 502, /cannot be reached right now/);
    } finally {
      await guarded.close();
    }
  });
});

describe('a provider whose discovery keeps failing', () => {
  // Issue 34 item 7 (CONTRACT.md §7): a failed discovery is not kept, so each press of the
  // provider's button would fetch it again; each fetch is counted under the address's
  // rate_limit_authorize before it is made, and a refused press fetches nothing.
  it('is fetched no more often than the address\'s rate_limit_authorize allows', async () => {
    let discoveries = 0;
    const failing = createServer((_request, response) => {
      discoveries += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      await t.admin.createRealm('flaky', { ...NO_RATE_LIMITS, rate_limit_authorize: 3 });
      await addProvider(t, 'flaky', `http://127.0.0.1:${(failing.address() as AddressInfo).port}`);
      const clientId = await appClient(t, 'flaky');
      const browser = new TestBrowser(t.app, t.baseUrl);
      // The transaction counts one of the three.
      const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      const login = location(await browser.get(`${realmPath('flaky')}/authorize?${query}`));
      const page = await browser.get(login);
      const answers = [];
      for (let press = 0; press < 6; press++) answers.push(await browser.submit(login, page, { provider: 'up' }));
      expect({ statuses: answers.map((answer) => answer.statusCode), discoveries }).toEqual({ statuses: [502, 502, 429, 429, 429, 429], discoveries: 2 });
      expectPage(answers[5]!, 429, /Too many/);
      expect(Number(answers[5]!.headers['retry-after'])).toBeGreaterThan(0);
      expect(discoveries).toBe(2);
    } finally {
      failing.closeAllConnections();
      await new Promise((resolve) => failing.close(resolve));
    }
  });
});

describe('an ID token the provider\'s keys do not verify', () => {
  it('ends on a page that says the answer could not be verified, and makes nobody', async () => {
    await addProvider(t, 'wrong-keys', upstream.issuer);
    const clientId = await appClient(t, 'wrong-keys');
    const browser = new TestBrowser(t.app, t.baseUrl);
    await upstream.publishWrongKeys();
    try {
      const started = await startAtProvider(browser, 'wrong-keys', clientId);
      const callback = await upstream.browse(location(started.response));
      expectPage(await browser.get(callback), 502, /sent an answer that could not be verified/);
    } finally {
      upstream.servedJwks = undefined;
    }
    expect(await usersOf('wrong-keys')).toBe(0);
  });
});
