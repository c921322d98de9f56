import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { backLink, loggedReference, referenceOf } from '../support/failure-pages.js';
import { realmPath } from '../support/oauth.js';
import { capturedLog } from '../support/self-service.js';
import { createUser } from '../support/users.js';
import { Upstream, addProvider, callbackOf, startAtProvider } from '../identity-providers/support.js';

/**
 * The pages a sign-in ends on when it cannot go on, outside the error handler (CONTRACT.md §16):
 * a disabled person, a sign-in at an upstream provider that was refused. Each names a reference
 * that one line of the log holds beside the request, and the way back to the client that asked.
 */
describe('pages that end a sign-in', () => {
  let t: TestApp;
  let upstream: Upstream;
  const log = capturedLog();

  beforeAll(async () => {
    upstream = await Upstream.start([callbackOf('failure-pages', 'up')]);
    t = await startTestApp({ logger: log.logger, outboundAllow: ['127.0.0.1'] });
    await t.admin.createRealm('failure-pages', NO_RATE_LIMITS);
    await t.admin.createClient('failure-pages', {
      client_id: 'orders',
      client_type: 'public',
      client_name: 'Orders',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile email',
    });
    await addProvider(t, 'failure-pages', upstream.issuer);
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });


  /** The log line that holds the reference (beside its request's line). */
  const loggedLine = (reference: string) => loggedReference(log.entries(), reference).line;

  function expectFailurePage(page: LightMyRequestResponse, status: number, words: string, error: string) {
    expect(page.statusCode, page.body.slice(0, 400)).toBe(status);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(words);
    const link = backLink(page.body);
    expect(link?.[1]).toBe(new URL(REDIRECT_URI).origin);
    expect(link?.[2]).toBe('Back to Orders');
    expect(loggedLine(referenceOf(page.body))).toMatchObject({ msg: 'error page', status, error });
  }

  it('a disabled person, once their password passed: the reference and the way back', async () => {
    const user = await createUser(t.admin, 'failure-pages', 'dora');
    expect((await t.admin.request('PATCH', '/realms/failure-pages/users/dora', { enabled: false })).statusCode).toBe(200);
    const browser = new TestBrowser(t.app, t.baseUrl);
    const loginUrl = location(await authorize(browser, 'failure-pages', codeRequest('orders', { code_challenge: pkce().challenge, code_challenge_method: 'S256' })));
    const page = await browser.submit(loginUrl, await browser.get(loginUrl), { username: 'dora', password: user.password });
    expectFailurePage(page, 403, 'This account is disabled', 'account_disabled');
    expect(JSON.stringify(loggedLine(referenceOf(page.body)))).not.toContain(user.password);
  });

  it('a sign-in refused at the upstream provider: the reference and the way back, in German too', async () => {
    for (const language of ['en', 'de']) {
      const browser = new TestBrowser(t.app, t.baseUrl);
      browser.headers = { 'accept-language': language };
      const started = await startAtProvider(browser, 'failure-pages', 'orders');
      const callback = await upstream.browseRefused(location(started.response));
      const page = await browser.get(callback);
      if (language === 'en') {
        expectFailurePage(page, 403, 'Signing in with Upstream Corp was cancelled or refused', 'upstream_denied');
      } else {
        expect(page.statusCode).toBe(403);
        expect(page.body).toContain('Zurück zu Orders');
        expect(page.body).toMatch(/Referenz für den Support: <code>[0-9a-f]{12}<\/code>/);
      }
    }
  });

  it('a sign-in to the account page that its journey refuses: a reference, and no way back (no client asked)', async () => {
    const journey = {
      start: 'pw',
      nodes: {
        pw: { type: 'password', next: { success: 'has' } },
        has: { type: 'condition', if: 'has_otp', next: { true: 'otp', false: 'deny' } },
        otp: { type: 'otp', next: { success: 'done' } },
      },
    };
    expect((await t.admin.request('PUT', '/realms/failure-pages/journeys/default', journey)).statusCode).toBeLessThan(300);
    try {
      const user = await createUser(t.admin, 'failure-pages', 'ruth');
      const browser = new TestBrowser(t.app, t.baseUrl);
      const loginUrl = location(await browser.get(`${realmPath('failure-pages')}/account`));
      const page = await browser.submit(loginUrl, await browser.get(loginUrl), { username: 'ruth', password: user.password });
      expect(page.statusCode, page.body.slice(0, 400)).toBe(403);
      expect(page.body).toContain('This sign-in was refused.');
      expect(backLink(page.body)).toBeNull();
      expect(loggedLine(referenceOf(page.body))).toMatchObject({ msg: 'error page', status: 403, error: 'sign_in_refused' });
    } finally {
      await t.admin.request('DELETE', '/realms/failure-pages/journeys/default');
    }
  });

  it('a self-service page the realm does not offer, reached from a sign-in: the reference and the way back, in the sign-in\u2019s language', async () => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const loginUrl = location(await authorize(browser, 'failure-pages', codeRequest('orders', { code_challenge: pkce().challenge, code_challenge_method: 'S256', ui_locales: 'de' })));
    const transaction = new URL(loginUrl, t.baseUrl).searchParams.get('transaction')!;
    expect(transaction).toBeTruthy();
    for (const page of [
      await browser.get(`${realmPath('failure-pages')}/register?transaction=${transaction}`),
      await browser.get(`${realmPath('failure-pages')}/reset?transaction=${transaction}`),
      await browser.post(`${realmPath('failure-pages')}/register`, { transaction, username: 'x' }),
    ]) {
      expect(page.statusCode, page.body.slice(0, 400)).toBe(404);
      expect(page.body).toContain('<html lang="de"');
      expect(page.body).toContain('Diese Seite ist nicht verfügbar.');
      const link = backLink(page.body);
      expect(link?.[1]).toBe(new URL(REDIRECT_URI).origin);
      expect(link?.[2]).toBe('Zurück zu Orders');
      expect(loggedLine(referenceOf(page.body))).toMatchObject({ msg: 'error page', status: 404, error: 'not_offered' });
    }
  });

  it('a self-service page the realm does not offer, opened alone or with a sign-in that is gone: a reference, and no way back', async () => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    for (const url of ['/register', '/reset', '/register?transaction=never-issued']) {
      const page = await browser.get(`${realmPath('failure-pages')}${url}`);
      expect(page.statusCode).toBe(404);
      expect(page.body).toContain('This page is not available.');
      expect(backLink(page.body)).toBeNull();
      expect(loggedLine(referenceOf(page.body))).toMatchObject({ status: 404, error: 'not_offered' });
    }
  });

  it('a callback whose state no sign-in issued: a reference, and no way back (no client is known)', async () => {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const forged = await browser.get(`${new URL(callbackOf('failure-pages', 'up')).pathname}?state=never-issued&code=x`);
    expect(forged.statusCode).toBe(400);
    expect(backLink(forged.body)).toBeNull();
    loggedLine(referenceOf(forged.body));
  });
});
