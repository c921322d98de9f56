import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, completeFlow, expectCode, expectErrorPage, expectRedirectError, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, location, pkce } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { postForm, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';
import { GOOD_PASSWORD, capturedLog, eventsOf, exchangeCode, hrefWith, linkIn, selfServiceRealm } from '../support/self-service.js';

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * `prompt=create` (Initiating User Registration via OpenID Connect 1.0, CONTRACT.md §12): the
 * sign-in begins on the registration page, and the code follows the registration.
 */
describe('prompt=create', () => {
  let mail: TestMailServer;
  let t: TestApp;
  const log = capturedLog();

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings, logger: log.logger });
    log.keep(GOOD_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const userOf = async (realm: string, username: string) => t.admin.request('GET', `/realms/${realm}/users/${encodeURIComponent(username)}`);
  const discoveryOf = async (realm: string) => (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();

  /** /authorize with `prompt` for the client: the response and the PKCE verifier. */
  async function ask(browser: TestBrowser, realm: string, clientId: string, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const response = await authorize(browser, realm, codeRequest(clientId, { code_challenge: challenge, scope: 'openid profile email', prompt: 'create', ...extra }));
    return { response, verifier };
  }

  /** Fills the registration page the response leads to; the answer to the form. */
  async function registerAt(browser: TestBrowser, response: Awaited<ReturnType<TestBrowser['get']>>, username: string) {
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    const registerUrl = location(response);
    expect(new URL(registerUrl).searchParams.get('transaction')).toEqual(expect.any(String));
    const form = await browser.get(registerUrl);
    expect(form.statusCode).toBe(200);
    // Its answer leads on to the client's redirect URI, which the browser lets through only when form-action names it.
    expect(form.headers['content-security-policy']).toMatch(/form-action [^;]*https:\/\/app\.example/);
    return browser.submit(registerUrl, form, { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
  }

  it('is listed in discovery while the realm offers registration, and not otherwise', async () => {
    const open = await selfServiceRealm(t, { self_registration: true });
    const closed = await selfServiceRealm(t, {});
    expect((await discoveryOf(open.realm)).prompt_values_supported).toEqual(expect.arrayContaining(['none', 'login', 'consent', 'create']));
    expect((await discoveryOf(closed.realm)).prompt_values_supported).not.toContain('create');
  });

  it('opens the registration page, then sends the code for the new person without another sign-in', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const { response, verifier } = await ask(browser, realm, clientId);
    expect(redirectPath(response)).toBe(`${realmPath(realm)}/register`);

    const before = nowSeconds();
    const username = name('ines');
    const registered = await registerAt(browser, response, username);
    expect(registered.statusCode, registered.body).toBe(303);
    const loginUrl = location(registered);
    expect(loginUrl).toBe(location(response).replace('/register?', '/login?'));

    // The sign-in page goes on by itself: the new person passed its password node.
    const { claims } = await exchangeCode(t, realm, clientId, await browser.get(loginUrl), verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(nowSeconds());
    expect(claims.email).toBe(`${username}@example.com`);
    const [event] = await eventsOf(t, realm, 'user.registered');
    expect(event).toMatchObject({ user_id: claims.sub, details: { via: 'register_page' } });
  });

  it('registers a new person even while the browser is signed in as someone else: the code is the new person\'s', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const existing = await createUser(t.admin, realm, name('old'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const { final } = await completeFlow(browser, (await ask(browser, realm, clientId, { prompt: 'login' })).response, existing);
    expectCode(final, { iss: issuerOf(realm) });

    const { response, verifier } = await ask(browser, realm, clientId);
    expect(redirectPath(response)).toBe(`${realmPath(realm)}/register`);
    const username = name('new');
    const registered = await registerAt(browser, response, username);
    const { claims } = await exchangeCode(t, realm, clientId, await browser.get(location(registered)), verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
    expect(claims.sub).not.toBe(existing.sub);
  });

  it('waits for the address to be confirmed when the realm verifies email, then sends the code', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true, email_verification: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const { response, verifier } = await ask(browser, realm, clientId);
    const username = name('vera');
    const loginUrl = location(await registerAt(browser, response, username));

    const waiting = await browser.get(loginUrl);
    expect(waiting.statusCode).toBe(200);
    expect(waiting.body).toContain('<h1>Confirm your email address</h1>');
    // No code before the address is confirmed.
    const early = await browser.submit(loginUrl, waiting, {});
    expect(early.statusCode).toBe(200);

    const link = log.keep(linkIn(await mail.nextMail(`${username}@example.com`), '/verify'));
    expect((await new TestBrowser(t.app, BASE_URL).get(link)).statusCode).toBe(200);
    const { claims } = await exchangeCode(t, realm, clientId, await browser.submit(loginUrl, waiting, {}), verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
    expect(claims.email_verified).toBe(true);
    expect(claims.amr).toEqual(['pwd']);
  });

  it('leaves the way to sign in instead on the registration page', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const person = await createUser(t.admin, realm, name('known'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const { response, verifier } = await ask(browser, realm, clientId);
    const signIn = hrefWith((await browser.get(location(response))).body, '/login');
    expect(signIn).toBe(location(response).replace('/register?', '/login?'));
    const page = await browser.get(signIn!);
    expect(page.body).toContain('name="password"');
    const signedIn = await browser.submit(signIn!, page, { username: person.username, password: person.password });
    const { claims } = await exchangeCode(t, realm, clientId, signedIn, verifier);
    expect(claims.sub).toBe(person.sub);
  });

  it('answers invalid_request at the redirect URI when the realm does not offer registration, and begins nothing', async () => {
    const { realm, clientId } = await selfServiceRealm(t, {});
    const browser = new TestBrowser(t.app, BASE_URL);
    const { response } = await ask(browser, realm, clientId);
    expectRedirectError(response, { error: 'invalid_request', iss: issuerOf(realm) });
    expect(browser.cookies.size).toBe(0);
    expectErrorPage(await browser.get(`${realmPath(realm)}/register`), 404);
  });

  it('refuses prompt=create with none: invalid_request, never a code for a signed-in person', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const person = await createUser(t.admin, realm, name('silent'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const { final } = await completeFlow(browser, (await ask(browser, realm, clientId, { prompt: 'login' })).response, person);
    expectCode(final, { iss: issuerOf(realm) });
    for (const prompt of ['create none', 'none create']) {
      expectRedirectError((await ask(browser, realm, clientId, { prompt })).response, { error: 'invalid_request', iss: issuerOf(realm) });
    }
  });

  it('works through PAR as at /authorize, and PAR refuses it where registration is off', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const { verifier, challenge } = pkce();
    const pushed = await postForm(t.app, `${realmPath(realm)}/par`, codeRequest(clientId, { code_challenge: challenge, scope: 'openid email', prompt: 'create' }) as Record<string, string>);
    expect(pushed.statusCode, pushed.body).toBe(201);
    const browser = new TestBrowser(t.app, BASE_URL);
    const response = await authorize(browser, realm, { client_id: clientId, request_uri: pushed.json().request_uri });
    expect(redirectPath(response)).toBe(`${realmPath(realm)}/register`);
    const username = name('paula');
    const registered = await registerAt(browser, response, username);
    const { claims } = await exchangeCode(t, realm, clientId, await browser.get(location(registered)), verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);

    const closed = await selfServiceRealm(t, {});
    const refused = await postForm(t.app, `${realmPath(closed.realm)}/par`, codeRequest(closed.clientId, { prompt: 'create' }) as Record<string, string>);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('invalid_request');
  });

  it('wrote none of the passwords or links above to the log', () => {
    log.expectNoSecrets();
  });
});
