import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { codeRequest } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, hiddenInputs, location, unescape } from '../support/flow.js';
import { backLink, loggedReference, referenceOf } from '../support/failure-pages.js';
import { realmPath } from '../support/oauth.js';
import { capturedLog } from '../support/self-service.js';

/**
 * The error page (CONTRACT.md §16): it names a reference that a line of the server's log holds
 * for that request, and offers the way back to the application only when the client and its
 * redirect URI are registered, never to an address the request wrote.
 */
describe('the error page', () => {
  let t: TestApp;
  let realm: string;
  let clientId: string;
  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ logger: log.logger });
    realm = 'error-pages';
    await t.admin.createRealm(realm, {});
    clientId = (
      await t.admin.createClient(realm, {
        client_type: 'public',
        client_name: 'Orders <App>',
        redirect_uris: [REDIRECT_URI, 'com.example.orders:/callback'],
        grant_types: ['authorization_code'],
        scope: 'openid profile',
      })
    ).client_id;
  });
  afterAll(() => t?.close());

  const hrefs = (page: string): string[] => [...page.matchAll(/<a [^>]*href="([^"]*)"/g)].map(([, href]) => unescape(href!));

  /** The log line that holds the reference, and the request line of the same request. */
  const logged = (reference: string) => loggedReference(log.entries(), reference);


  const authorize = (browser: TestBrowser, params: ReturnType<typeof codeRequest>): Promise<LightMyRequestResponse> =>
    browser.get(`${realmPath(realm)}/authorize?${new URLSearchParams(params as Record<string, string>)}`);

  it('names a reference that the log holds beside the request, and no way back to an attacker\u2019s redirect URI', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    const page = await authorize(browser, codeRequest(clientId, { redirect_uri: 'https://attacker.example/steal' }));
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const reference = referenceOf(page.body);
    expect(page.body).toContain(`Reference for support: <code>${reference}</code>`);
    expect(backLink(page.body)).toBeNull();
    expect(hrefs(page.body).filter((href) => href.includes('attacker'))).toEqual([]);

    const { line, request } = logged(reference);
    expect(line).toMatchObject({ msg: 'error page', status: 400 });
    expect(request).toMatchObject({ method: 'GET', status: 400 });
    expect(String(request.url)).toContain(`${realmPath(realm)}/authorize`);

    // Each error page has its own reference.
    const again = await authorize(browser, codeRequest(clientId, { redirect_uri: 'https://attacker.example/steal' }));
    expect(referenceOf(again.body)).not.toBe(reference);
  });

  it('gives no way back for an unknown client, nor for a client_id that is a URL (nothing is fetched)', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    for (const client of ['no-such-client', 'https://attacker.example/client.json']) {
      const page = await authorize(browser, codeRequest(client, { redirect_uri: REDIRECT_URI }));
      expect(page.statusCode).toBeGreaterThanOrEqual(400);
      referenceOf(page.body);
      expect(backLink(page.body)).toBeNull();
    }
  });

  it('offers the way back to the application of a live sign-in: the origin of its registered redirect URI, by the client\u2019s name', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    const started = await authorize(browser, codeRequest(clientId));
    const loginUrl = location(started);
    const login = await browser.get(loginUrl);
    // A form whose CSRF token does not match: the page cannot go on.
    const refused = await browser.post(loginUrl, { ...hiddenInputs(login.body), csrf: 'forged', username: 'x', password: 'y' });
    expect(refused.statusCode).toBe(400);
    const link = backLink(refused.body);
    expect(link?.[1]).toBe(new URL(REDIRECT_URI).origin);
    expect(link?.[2]).toBe('Back to Orders &lt;App&gt;');
    referenceOf(refused.body);

    // In German, the same page in German.
    browser.headers = { 'accept-language': 'de' };
    const german = await browser.post(`${loginUrl}&ui_locales=de`, { ...hiddenInputs(login.body), csrf: 'forged' });
    expect(german.body).toContain('Zurück zu Orders &lt;App&gt;');
    expect(german.body).toMatch(/Referenz für den Support: <code>[0-9a-f]{12}<\/code>/);
  });

  it('offers no way back from another browser\u2019s transaction', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    const loginUrl = location(await authorize(browser, codeRequest(clientId)));
    const login = await browser.get(loginUrl);
    const stranger = new TestBrowser(t.app, BASE_URL);
    const refused = await stranger.post(loginUrl, { ...hiddenInputs(login.body), username: 'x', password: 'y' });
    expect(refused.statusCode).toBe(400);
    expect(backLink(refused.body)).toBeNull();
    referenceOf(refused.body);
  });

  it('keeps secrets of the request out of the log line of its reference', async () => {
    const browser = new TestBrowser(t.app, BASE_URL);
    const page = await authorize(browser, codeRequest(clientId, { redirect_uri: 'https://attacker.example/steal', code_challenge: 'secret-challenge-value-0123456789-abcdefghijk' }));
    const { line } = logged(referenceOf(page.body));
    expect(JSON.stringify(line)).not.toContain('secret-challenge-value');
  });
});
