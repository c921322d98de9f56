import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { basic } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';
import { browserSkipReason, launchChromium, signIn, sleep, startsWith, watchedContext } from './support.js';

/**
 * CIBA in poll mode (CIBA Core §7, §10.1) with the person's authentication device played by a
 * real Chromium at `{issuer}/bc-approve`, JavaScript on so that the pages report CSP
 * violations: the test plays the client (a /bc-authorize request, then polls), the browser
 * signs in, finds the request by its binding message, and allows or denies it.
 */
const skipReason = browserSkipReason('test/browser/ciba-approval.test.ts');

const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';
const CLIENT_NAME = 'Checkout Kiosk';
/** The realm's poll interval (seconds), and the wait that keeps each poll clear of slow_down. */
const POLL_INTERVAL = 1;
const POLL_GAP_MS = POLL_INTERVAL * 1000 + 150;

interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

interface Setup {
  issuer: string;
  client: { clientId: string; secret: string };
  alice: TestUser;
  bob: TestUser;
}

describe.skipIf(skipReason !== undefined)(`CIBA approval in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A realm of the test's own (sessions and consents do not mix), with a CIBA client and two people. */
  async function setUp(): Promise<Setup> {
    const name = `ciba-${randomBytes(4).toString('hex')}`;
    const realm = await t.admin.createRealm(name, { ciba_poll_interval: POLL_INTERVAL });
    expect(realm.issuer).toBe(`${t.baseUrl}/oauth2/${name}`);
    await t.admin.putScope(name, 'payments:approve', 'Approve payments');
    const client = await t.admin.createClient(name, {
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      client_name: CLIENT_NAME,
      grant_types: [CIBA_GRANT, 'refresh_token'],
      scope: 'openid profile payments:approve',
    });
    const alice = await createUser(t.admin, name, 'alice', { claims: { name: 'Alice Example' } });
    const bob = await createUser(t.admin, name, 'bob');
    return { issuer: realm.issuer, client: { clientId: client.client_id, secret: client.client_secret as string }, alice, bob };
  }

  async function post(setup: Setup, path: string, form: Record<string, string>): Promise<JsonAnswer> {
    const response = await fetch(`${setup.issuer}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(setup.client.clientId, setup.client.secret),
      },
      body: new URLSearchParams(form),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The client: a backchannel request for a person, then polls no faster than the interval it was given. */
  async function backchannelRequest(setup: Setup, loginHint: string, bindingMessage: string, scope = 'openid profile payments:approve') {
    const answer = await post(setup, '/bc-authorize', { scope, login_hint: loginHint, binding_message: bindingMessage });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ auth_req_id: expect.any(String), expires_in: expect.any(Number), interval: POLL_INTERVAL });
    const authReqId = answer.body.auth_req_id as string;
    let lastPoll = 0;
    return {
      authReqId,
      async poll(): Promise<JsonAnswer> {
        const wait = lastPoll + POLL_GAP_MS - Date.now();
        if (wait > 0) await sleep(wait);
        lastPoll = Date.now();
        return post(setup, '/access_token', { grant_type: CIBA_GRANT, auth_req_id: authReqId });
      },
    };
  }

  function expectPollError(answer: JsonAnswer, error: string): void {
    expect(answer).toEqual({ status: 400, body: { error, error_description: expect.any(String) } });
  }

  const title = (page: Page) => page.title().then((text) => text.replace(/ · .*$/, ''));
  const approvePage = (setup: Setup) => `${setup.issuer}/bc-approve`;

  /** Opens /bc-approve without a session: the sign-in page, then back to /bc-approve. */
  async function signInAtApprovePage(page: Page, setup: Setup, user: TestUser): Promise<void> {
    await page.goto(approvePage(setup));
    expect(page.url()).toMatch(startsWith(`${setup.issuer}/login?`));
    await expect(title(page)).resolves.toBe('Sign in');
    await signIn(page, user.username, user.password, (url) => url.href === approvePage(setup));
    await expect(title(page)).resolves.toBe('Requests waiting for you');
    await expect(page.locator('main').innerText()).resolves.toContain(`Signed in as ${user.username}.`);
  }

  /** The request forms on the page, each with what it shows. */
  async function shownRequests(page: Page): Promise<Array<{ text: string; bindingMessage: string | null; scopes: string[] }>> {
    const sections = await page.locator('section.request').all();
    return Promise.all(
      sections.map(async (section) => ({
        text: await section.innerText(),
        bindingMessage: await section.locator('.binding-message').textContent(),
        scopes: await section.locator('ul.scopes li').allInnerTexts(),
      })),
    );
  }

  /** The form of the request that shows this binding message. */
  const requestSection = (page: Page, bindingMessage: string): Locator =>
    page.locator('section.request').filter({ has: page.locator('.binding-message', { hasText: bindingMessage }) });

  /** Answers a request and waits for the page to come back with its notice. */
  async function answer(page: Page, setup: Setup, bindingMessage: string, decision: 'allow' | 'deny'): Promise<void> {
    const section = requestSection(page, bindingMessage);
    await expect(section.count()).resolves.toBe(1);
    const answered = decision === 'allow' ? 'approved' : 'denied';
    await Promise.all([
      page.waitForURL(`${approvePage(setup)}?answered=${answered}`),
      section.locator(`form button[name=decision][value=${decision}]`).click(),
    ]);
  }

  const notice = (page: Page) => page.getByRole('status').innerText();

  it('the person signs in at /bc-approve, allows the request, and the client gets its tokens once', async () => {
    const setup = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const request = await backchannelRequest(setup, 'alice', 'Pay 42.00 EUR at till 7');
      expectPollError(await request.poll(), 'authorization_pending');

      await signInAtApprovePage(page, setup, setup.alice);
      expect(await shownRequests(page)).toEqual([
        {
          text: expect.stringContaining(`${CLIENT_NAME} asks to:`),
          bindingMessage: 'Pay 42.00 EUR at till 7',
          scopes: ['Sign you in with your account openid', 'See your name and basic profile profile', 'Approve payments payments:approve'],
        },
      ]);
      expectPollError(await request.poll(), 'authorization_pending');

      await answer(page, setup, 'Pay 42.00 EUR at till 7', 'allow');
      await expect(notice(page)).resolves.toBe('You allowed the request. The application can now continue.');
      await expect(page.locator('section.request').count()).resolves.toBe(0);
      await expect(page.locator('main').innerText()).resolves.toContain('No requests are waiting for you.');

      const tokens = await request.poll();
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body).toMatchObject({
        token_type: 'Bearer',
        access_token: expect.any(String),
        id_token: expect.any(String),
        refresh_token: expect.any(String),
        expires_in: expect.any(Number),
        scope: 'openid profile payments:approve',
      });
      const { payload } = await jwtVerify(tokens.body.id_token as string, createRemoteJWKSet(new URL(`${setup.issuer}/connect/jwk_uri`)), {
        issuer: setup.issuer,
        audience: setup.client.clientId,
      });
      expect(payload).toMatchObject({ sub: setup.alice.sub, aud: setup.client.clientId, name: 'Alice Example' });

      // The refresh token works for the client.
      const refreshed = await post(setup, '/access_token', { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);

      // The auth_req_id bought its tokens once.
      expectPollError(await request.poll(), 'invalid_grant');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);

  it('Deny shows the notice, and the client hears access_denied', async () => {
    const setup = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const request = await backchannelRequest(setup, 'alice', 'Transfer 900 EUR to M. Mallory');
      expectPollError(await request.poll(), 'authorization_pending');

      await signInAtApprovePage(page, setup, setup.alice);
      expect((await shownRequests(page)).map((shown) => shown.bindingMessage)).toEqual(['Transfer 900 EUR to M. Mallory']);
      await answer(page, setup, 'Transfer 900 EUR to M. Mallory', 'deny');
      await expect(notice(page)).resolves.toBe('You denied the request.');
      await expect(page.locator('section.request').count()).resolves.toBe(0);

      expectPollError(await request.poll(), 'access_denied');
      expectPollError(await request.poll(), 'access_denied');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);

  it('two waiting requests show as two forms; answering one leaves the other; another person’s request is not shown', async () => {
    const setup = await setUp();
    const { context, page, problems } = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const first = await backchannelRequest(setup, 'alice', 'Order 1001: 12.50 EUR');
      const second = await backchannelRequest(setup, 'alice', 'Order 1002: 99.00 EUR', 'openid payments:approve');
      const bobs = await backchannelRequest(setup, 'bob', 'Order 2001 for Bob');

      await signInAtApprovePage(page, setup, setup.alice);
      const shown = await shownRequests(page);
      expect(shown.map((request) => request.bindingMessage).sort()).toEqual(['Order 1001: 12.50 EUR', 'Order 1002: 99.00 EUR']);
      // The binding message leads the request, larger than any other text of it: it is what the person compares.
      const layout = (await page.evaluate(`(() => {
        const section = document.querySelector('section.request');
        const size = (element) => parseFloat(getComputedStyle(element).fontSize);
        const message = section.querySelector('.binding-message');
        const others = [...section.querySelectorAll('p, li, button')].filter((element) => element !== message);
        return { first: section.firstElementChild.className, second: section.children[1].className, messageSize: size(message), largestOther: Math.max(...others.map(size)) };
      })()`)) as { first: string; second: string; messageSize: number; largestOther: number };
      expect(layout).toMatchObject({ first: 'binding-lead', second: 'binding-message' });
      expect(layout.messageSize).toBeGreaterThanOrEqual(layout.largestOther * 1.5);
      expect(shown.every((request) => request.text.includes(`${CLIENT_NAME} asks to:`))).toBe(true);
      expect(shown.find((request) => request.bindingMessage === 'Order 1002: 99.00 EUR')?.scopes).toEqual([
        'Sign you in with your account openid',
        'Approve payments payments:approve',
      ]);
      await expect(page.locator('section.request form').count()).resolves.toBe(2);

      await answer(page, setup, 'Order 1002: 99.00 EUR', 'allow');
      await expect(notice(page)).resolves.toBe('You allowed the request. The application can now continue.');
      expect((await shownRequests(page)).map((request) => request.bindingMessage)).toEqual(['Order 1001: 12.50 EUR']);

      const tokens = await second.poll();
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String), scope: 'openid payments:approve' });
      expectPollError(await first.poll(), 'authorization_pending');
      expectPollError(await bobs.poll(), 'authorization_pending');

      await answer(page, setup, 'Order 1001: 12.50 EUR', 'deny');
      await expect(notice(page)).resolves.toBe('You denied the request.');
      await expect(page.locator('section.request').count()).resolves.toBe(0);
      expectPollError(await first.poll(), 'access_denied');
      expectPollError(await bobs.poll(), 'authorization_pending');
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await context.close();
    }
  }, 30_000);
});
