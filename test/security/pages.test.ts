import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { query } from '../support/flow-helpers.js';
import { REDIRECT_URI, location, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser } from '../support/users.js';
import { type PageForm, RecordingBrowser, type Seen, awayFromStepEnd, formsOf, personIn, routeTable, securityRealm, setCookies, totpOf } from './support.js';

/** A wrong password's delay is test/authn/brute-force.test.ts's subject: here it would only slow the tour. */
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';
const LOGGED_OUT = 'https://app.example/signed-out';

/**
 * A tour of every page a person's browser visits (sign-in with a password and a one-time
 * code, consent, the account page and its sections, the device page, the CIBA approval page,
 * sign-out) and of their error pages, recording every response; then what must hold of all
 * of them: RFC 9700 §4.16 (clickjacking), §4.2 (Referer), §4.12 (no 307), and the flags of
 * every cookie.
 */
describe('every page of the browser flows', () => {
  let t: TestApp;
  let realm: string;
  let user: TestUser;
  let totpSecret: string;
  const b = () => new RecordingBrowser(t.app, t.baseUrl);
  const browsers: RecordingBrowser[] = [];
  const seen = (): Seen[] => browsers.flatMap((browser) => browser.seen);
  const html = (): Seen[] => seen().filter(({ response }) => String(response.headers['content-type']).startsWith('text/html'));
  const issuer = () => `${t.baseUrl}${realmPath(realm)}`;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await securityRealm(t, { authentication: ['password', 'otp'], device_poll_interval: 1, ciba_poll_interval: 1 });
    user = await personIn(t, realm);
    const enrolled = await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    totpSecret = (enrolled.json() as { secret: string }).secret;

    const web = await t.admin.createClient(realm, {
      client_type: 'public',
      client_name: 'Web app',
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [LOGGED_OUT],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    const tv = await t.admin.createClient(realm, { client_type: 'public', client_name: 'TV', grant_types: [DEVICE_GRANT], scope: 'openid' });
    const desk = await t.admin.createClient(realm, { client_name: 'Desk', grant_types: [CIBA_GRANT], scope: 'openid' });

    const browser = b();
    browsers.push(browser);
    const flowUrl = `${realmPath(realm)}/authorize`;
    const request = { client_id: web.client_id, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' };

    // Error pages of /authorize: an unknown client, an unregistered redirect URI.
    await browser.get(`${flowUrl}?${query({ ...request, client_id: 'nobody' })}`);
    await browser.get(`${flowUrl}?${query({ ...request, redirect_uri: 'https://evil.example/cb' })}`);

    // The pages of a store outage (503) and of a fault (500).
    const begin = t.store.authorizationFlow.begin;
    try {
      for (const fault of [new StoreUnavailableError('connect ECONNREFUSED'), new Error('a fault')]) {
        t.store.authorizationFlow.begin = () => Promise.reject(fault);
        await browser.get(`${flowUrl}?${query(request)}`);
      }
    } finally {
      t.store.authorizationFlow.begin = begin;
    }

    // Sign-in: a wrong password, the password, the one-time code; then consent.
    const start = await browser.get(`${flowUrl}?${query(request)}`);
    const loginUrl = location(start);
    const passwordPage = await browser.get(loginUrl);
    await browser.submit(loginUrl, passwordPage, { username: user.username, password: 'not the password' });
    const toCode = await browser.submit(loginUrl, passwordPage, { username: user.username, password: user.password });
    expect(location(toCode)).toBe(loginUrl);
    const codePage = await browser.get(loginUrl);
    await awayFromStepEnd();
    const toConsent = await browser.submit(loginUrl, codePage, { otp: totpOf(totpSecret).generate() });
    const consentUrl = location(toConsent);
    const consentPage = await browser.get(consentUrl);
    const answered = await browser.submit(consentUrl, consentPage, { decision: 'allow' });
    expect(new URL(location(answered)).searchParams.get('code')).toBeTruthy();
    // Error pages of the sign-in and consent pages: a finished transaction, a form without its token.
    await browser.get(loginUrl);
    await browser.get(`${realmPath(realm)}/login`);
    await browser.post(consentUrl, { decision: 'allow' });

    // The account page and the pages of its sections.
    const account = await browser.get(`${realmPath(realm)}/account`);
    const post = (form: PageForm, fields: Record<string, string> = {}) => browser.post(form.action!, { ...form.hidden, ...fields });
    const formTo = (page: LightMyRequestResponse, path: string) => formsOf(page.body).find((form) => form.action === `${issuer()}/account/${path}`)!;
    await post(formTo(account, 'recovery-codes'));
    const removed = await post(formTo(account, 'otp/remove'));
    const withNotice = await browser.get(location(removed));
    const enrolment = await post(formTo(withNotice, 'otp/enrol'));
    await browser.post(`${issuer()}/account/otp/confirm`, { ...formsOf(enrolment.body)[0]!.hidden, otp: '000000' });
    await browser.post(`${issuer()}/account/sessions/end`, { sid: 'x', csrf: 'wrong' });

    // The device page: a wrong code, the right one, consent, the answer.
    const device = await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: tv.client_id });
    const { user_code: userCode } = device.json() as { user_code: string };
    const devicePageUrl = `${realmPath(realm)}/device/user`;
    const devicePage = await browser.get(devicePageUrl);
    await browser.submit(devicePageUrl, devicePage, { user_code: 'BCDF-GHJK' });
    const toDeviceConsent = await browser.submit(devicePageUrl, devicePage, { user_code: userCode });
    const deviceConsentUrl = location(toDeviceConsent);
    await browser.submit(deviceConsentUrl, await browser.get(deviceConsentUrl), { decision: 'allow' });

    // The CIBA approval page: the request, the answer, the notice.
    const ciba = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: user.username }, {
      authorization: basic(desk.client_id, desk.client_secret!),
    });
    expect(ciba.statusCode, ciba.body).toBe(200);
    const approvalUrl = `${realmPath(realm)}/bc-approve`;
    const approval = await browser.get(approvalUrl);
    const approvedAt = await browser.post(approvalUrl, { ...formsOf(approval.body)[0]!.hidden, decision: 'allow' });
    await browser.get(location(approvedAt));

    // Sign-out: the confirmation page, the answer; then the pages without a session.
    const endSessionUrl = `${realmPath(realm)}/connect/endSession?${query({ client_id: web.client_id, post_logout_redirect_uri: LOGGED_OUT, state: 'bye' })}`;
    const confirmation = await browser.get(endSessionUrl);
    await browser.post(`${realmPath(realm)}/connect/endSession`, { ...formsOf(confirmation.body)[0]!.hidden, decision: 'allow' });
    await browser.get(`${realmPath(realm)}/connect/endSession`);
    await browser.get(`${realmPath(realm)}/account`);
    await browser.get(`${realmPath(realm)}/bc-approve`);
    // The self-service pages, turned off in this realm, and a verification link that is no ticket.
    await browser.get(`${realmPath(realm)}/register`);
    await browser.get(`${realmPath(realm)}/reset`);
    await browser.get(`${realmPath(realm)}/verify?${query({ ticket: 'not-a-ticket' })}`);
    // The error page of a return from a provider the realm does not have.
    await browser.get(`${realmPath(realm)}/broker/nobody/callback?${query({ state: 'x', code: 'y' })}`);
    await browser.get(`${realmPath(realm)}/connect/endSession?${query({ post_logout_redirect_uri: 'https://evil.example/' })}`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('visited every page route of the realm, and error pages among them', () => {
    const pageRoutes = routeTable(t.app)
      .filter(({ path, methods }) => path.startsWith('/oauth2/:realm/') && methods.includes('GET') && !/\/(assets|\.well-known|connect\/(jwk_uri|register)|userinfo)\b/.test(path))
      .map(({ path }) => path.replace('/oauth2/:realm', realmPath(realm)).replace(':alias', 'nobody'));
    const visited = new Set(html().map(({ url }) => url.split('?')[0]));
    for (const path of pageRoutes) {
      // /authorize answers HTML only for its errors; the others are pages.
      expect(visited.has(path), `no HTML page of ${path} was seen`).toBe(true);
    }
    const statuses = new Set(html().map(({ response }) => response.statusCode));
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 500, 503]));
    // /authorize (unknown client, unregistered redirect URI), /login and /consent (finished, without token), the account, sign-out.
    expect(html().filter(({ response }) => response.statusCode === 400).length).toBeGreaterThanOrEqual(7);
  });

  it('forbids framing on every HTML page, error pages included: X-Frame-Options DENY and CSP frame-ancestors none (RFC 9700 §4.16)', () => {
    for (const { method, url, response } of html()) {
      const where = `${method} ${url} (${response.statusCode})`;
      expect(response.headers['x-frame-options'], where).toBe('DENY');
      const csp = String(response.headers['content-security-policy']);
      expect(csp.split('; '), where).toContain("frame-ancestors 'none'");
      expect(csp, where).not.toContain('unsafe-inline');
    }
  });

  it("keeps every page's URL out of Referer headers and caches: Referrer-Policy no-referrer, no-store, nosniff (RFC 9700 §4.2.4)", () => {
    for (const { method, url, response } of html()) {
      const where = `${method} ${url} (${response.statusCode})`;
      expect(response.headers['referrer-policy'], where).toBe('no-referrer');
      expect(response.body, where).toContain('<meta name="referrer" content="no-referrer">');
      expect(response.headers['cache-control'], where).toBe('no-store');
      expect(response.headers['x-content-type-options'], where).toBe('nosniff');
    }
  });

  it('has only post forms, each with its CSRF token, and no page loads anything from another origin', () => {
    for (const { url, response } of html()) {
      for (const tag of response.body.match(/<form\b[^>]*>/g) ?? []) expect(tag, url).toMatch(/^<form method="post"(?: action="[^"]*")?>$/);
      for (const form of formsOf(response.body)) expect(form.hidden.csrf, `a form of ${url} without a CSRF token`).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const [, src] of response.body.matchAll(/<(?:script|img|link|iframe)\b[^>]*(?:src|href)="([^"]*)"/g)) {
        expect(src!.startsWith(`${issuer()}/`), `${url} loads ${src}`).toBe(true);
      }
    }
  });

  it('answers every redirect with 303, never 307 or 308, so that no browser re-posts a form with a password (RFC 9700 §4.12)', () => {
    const redirects = seen().filter(({ response }) => response.headers.location !== undefined);
    const posted = new Set(redirects.filter(({ method }) => method === 'POST').map(({ url }) => url.split('?')[0]!.slice(realmPath(realm).length)));
    expect([...posted].sort()).toEqual(['/account/otp/remove', '/bc-approve', '/connect/endSession', '/consent', '/device/user', '/login']);
    for (const { method, url, response } of redirects) expect(response.statusCode, `${method} ${url}`).toBe(303);
  });

  it("sends the browser only to this realm's pages or to URIs registered for the client (RFC 9700 §4.11.2)", () => {
    const registered = [REDIRECT_URI, LOGGED_OUT];
    for (const { method, url, response } of seen().filter(({ response }) => response.headers.location !== undefined)) {
      const target = new URL(location(response));
      const own = target.href.startsWith(`${issuer()}/`);
      expect(own || registered.includes(`${target.origin}${target.pathname}`), `${method} ${url} sent the browser to ${target.href}`).toBe(true);
    }
  });

  it('sets every cookie HttpOnly, Secure, SameSite=Lax, signed, on the path of the realm issuer, without Domain', () => {
    const cookies = seen().flatMap(({ response }) => setCookies(response));
    const names = new Set(cookies.map((cookie) => cookie.slice(0, cookie.indexOf('='))));
    expect([...names].sort()).toEqual([`rg_browser_${realm}`, `rg_device_${realm}`, `rg_session_${realm}`]);
    for (const cookie of cookies) {
      const [pair, ...attributes] = cookie.split('; ');
      const flags = attributes.map((attribute) => attribute.split('=')[0]!.toLowerCase());
      expect(flags, cookie).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite', 'path']));
      expect(attributes, cookie).toContain('SameSite=Lax');
      expect(attributes, cookie).toContain(`Path=${realmPath(realm)}`);
      expect(flags, cookie).not.toContain('domain');
      const value = decodeURIComponent(pair!.slice(pair!.indexOf('=') + 1));
      // A cleared cookie has no value; any other carries @fastify/cookie's signature.
      if (value !== '') expect(value, cookie).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9+/_-]{43}=?$/);
    }
  });
});

describe('cookies on an http BASE_URL', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('are not Secure (a browser would drop them), and keep their other flags', async () => {
    t = await startTestApp({ baseUrl: 'http://localhost:9000' });
    const realm = await securityRealm(t);
    const browser = new RecordingBrowser(t.app, t.baseUrl);
    const response = await browser.get(`${realmPath(realm)}/device/user`);
    const [binding] = setCookies(response);
    expect(binding).toMatch(new RegExp(`^rg_browser_${realm}=`));
    expect(binding).toContain('HttpOnly');
    expect(binding).toContain('SameSite=Lax');
    expect(binding).not.toContain('Secure');
  });
});
