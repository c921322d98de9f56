import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { expectErrorPage, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';
import { GOOD_PASSWORD, beginSignIn, capturedLog, errorOf, eventsOf, exchangeCode, hrefWith, noticeOf, selfServiceRealm } from '../support/self-service.js';

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** Registration (CONTRACT.md §9): `{issuer}/register`, its link on the sign-in page, and the `register` node. */
describe('self-registration', () => {
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

  const registerUrl = (realm: string) => `${realmPath(realm)}/register`;
  const userOf = async (realm: string, username: string) => t.admin.request('GET', `/realms/${realm}/users/${encodeURIComponent(username)}`);

  it('is not offered while self_registration is off: no link on the sign-in page, and no page', async () => {
    const { realm, clientId } = await selfServiceRealm(t, {});
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(browser, realm, clientId);
    const page = await browser.get(loginUrl);
    expect(hrefWith(page.body, '/register')).toBeUndefined();
    expect(hrefWith(page.body, '/reset')).toBeUndefined();
    expectErrorPage(await browser.get(registerUrl(realm)), 404);
    expectErrorPage(await browser.post(registerUrl(realm), { username: 'x', email: 'x@example.com', password: GOOD_PASSWORD }), 404);
    expect((await userOf(realm, 'x')).statusCode).toBe(404);
  });

  it('creates a person from the form: the email unconfirmed, the names as claims; an audit event and a page that says so', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));
    expect(form.statusCode).toBe(200);
    for (const field of ['username', 'email', 'password', 'given_name', 'family_name']) expect(form.body).toContain(`name="${field}"`);
    expect(form.body).toContain(`<p class="realm">${realm}</p>`);
    expect(hiddenInputs(form.body).csrf).toEqual(expect.any(String));

    const username = name('ada');
    const done = await browser.submit(registerUrl(realm), form, {
      username,
      email: `${username}@example.com`,
      password: GOOD_PASSWORD,
      given_name: 'Ada',
      family_name: 'Lovelace',
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(noticeOf(done.body)).toBe('Your account is created. You can now sign in.');
    expect(hrefWith(done.body, '/account')).toBe(`${issuerOf(realm)}/account`);
    expect(done.body).not.toContain(GOOD_PASSWORD);

    const user = (await userOf(realm, username)).json();
    expect(user.claims).toEqual({ email: `${username}@example.com`, email_verified: false, given_name: 'Ada', family_name: 'Lovelace' });
    const [event] = await eventsOf(t, realm, 'user.registered');
    expect(event).toMatchObject({ user_id: user.sub, details: { via: 'register_page' } });
    expect(JSON.stringify(event)).not.toContain(GOOD_PASSWORD);
    // Without email_verification, nothing is mailed.
    expect(mail.received.filter((received) => received.to.includes(`${username}@example.com`))).toHaveLength(0);
  });

  it('names what is wrong, keeps what was typed but the password, and creates no one', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true, password_min_length: 12 });
    const taken = await createUser(t.admin, realm, name('taken'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));

    const typed = { username: taken.username.toUpperCase(), email: 'not-an-address', password: 'short-pw', given_name: 'Grace', family_name: 'Hopper' };
    const refused = await browser.submit(registerUrl(realm), form, typed);
    expect(refused.statusCode).toBe(200);
    expect(errorOf(refused.body)).toBe(
      'This username is taken: choose another. Enter a valid email address. The password must be at least 12 characters.',
    );
    expect(refused.body).toContain(`value="${typed.username}"`);
    expect(refused.body).toContain('value="not-an-address"');
    expect(refused.body).toContain('value="Grace"');
    expect(refused.body).toContain('value="Hopper"');
    expect(refused.body).not.toContain('short-pw');

    const common = await browser.submit(registerUrl(realm), refused, { username: name('new'), email: 'new@example.com', password: 'password1234' });
    expect(errorOf(common.body)).toBe('The password is one of the most common passwords: choose another.');
    const same = name('samename1234');
    const asName = await browser.submit(registerUrl(realm), refused, { username: same, email: 'new@example.com', password: same });
    expect(errorOf(asName.body)).toBe('The password must not be the username.');
    expect((await userOf(realm, same)).statusCode).toBe(404);
    expect(await eventsOf(t, realm, 'user.registered')).toHaveLength(0);
  });

  it('refuses a form without its CSRF token, or from another browser', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));
    const fields = { username: name('csrf'), email: 'csrf@example.com', password: GOOD_PASSWORD };
    expectErrorPage(await browser.post(registerUrl(realm), fields));
    const other = new TestBrowser(t.app, BASE_URL);
    await other.get(registerUrl(realm));
    expectErrorPage(await other.post(registerUrl(realm), { ...hiddenInputs(form.body), ...fields }));
    expect((await userOf(realm, fields.username)).statusCode).toBe(404);
  });

  it('goes on with the sign-in it was reached from, signed in as the new person (amr pwd)', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const signInPage = await browser.get(loginUrl);
    const link = hrefWith(signInPage.body, '/register');
    expect(link).toMatch(new RegExp(`^${issuerOf(realm)}/register\\?transaction=`));

    const form = await browser.get(link!);
    expect(hrefWith(form.body, '/login')).toBe(loginUrl);
    const username = name('grace');
    const registered = await browser.submit(link!, form, { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
    expect(registered.statusCode, registered.body).toBe(303);
    expect(location(registered)).toBe(loginUrl);

    const back = await browser.get(loginUrl);
    const { claims } = await exchangeCode(t, realm, clientId, back, verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.email).toBe(`${username}@example.com`);
    expect(claims.email_verified).toBe(false);
  });

  it("goes on with the sign-in when its journey decides a node before the password (a condition on the client)", async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true });
    const journey = {
      start: 'which',
      nodes: {
        which: { type: 'condition', if: { client_in: [clientId] }, next: { true: 'pw', false: 'pw' } },
        pw: { type: 'password', next: { success: 'done' } },
      },
    };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, journey)).statusCode).toBeLessThan(300);
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const link = hrefWith((await browser.get(loginUrl)).body, '/register');
    const username = name('heidi');
    const registered = await browser.submit(link!, await browser.get(link!), { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
    expect(registered.statusCode, registered.body).toBe(303);
    expect(location(registered)).toBe(loginUrl);
    const { claims } = await exchangeCode(t, realm, clientId, await browser.get(loginUrl), verifier);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
  });

  it('counts posts against the address limit of the sign-in pages', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true, rate_limit_sign_in: 2 });
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.remoteAddress = '192.0.2.77';
    const form = await browser.get(registerUrl(realm));
    const post = () => browser.submit(registerUrl(realm), form, { username: '', email: '', password: '' });
    expect((await post()).statusCode).toBe(200);
    expect((await post()).statusCode).toBe(200);
    const limited = await post();
    expectErrorPage(limited, 429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
  });

  it('runs a journey\'s register node: the form within the sign-in, its problems on the page, then signed in', async () => {
    const { realm, clientId } = await selfServiceRealm(t, {});
    const journey = {
      start: 'how',
      nodes: {
        how: { type: 'choice', options: [{ label: 'Sign in', next: 'pw' }, { label: 'Create an account', next: 'new' }] },
        pw: { type: 'password', next: { success: 'done' } },
        new: { type: 'register', next: { success: 'done' } },
      },
    };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, journey)).statusCode).toBeLessThan(300);
    const taken = await createUser(t.admin, realm, name('taken'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const choice = await browser.get(loginUrl);
    const chosen = await browser.submit(loginUrl, choice, { option: '1' });
    expect(location(chosen)).toBe(loginUrl);

    const form = await browser.get(loginUrl);
    expect(form.body).toContain('<h1>Create an account</h1>');
    const refused = await browser.submit(loginUrl, form, { username: taken.username, email: 'kept@example.com', password: GOOD_PASSWORD, given_name: 'Kept' });
    expect(errorOf(refused.body)).toBe('This username is taken: choose another.');
    expect(refused.body).toContain('value="kept@example.com"');
    expect(refused.body).toContain('value="Kept"');
    expect(refused.body).not.toContain(GOOD_PASSWORD);

    const username = name('node');
    const done = await browser.submit(loginUrl, refused, { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
    const { claims } = await exchangeCode(t, realm, clientId, done, verifier);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.sub).toBe((await userOf(realm, username)).json().sub);
    const [event] = await eventsOf(t, realm, 'user.registered');
    expect(event).toMatchObject({ details: { via: 'sign_in' } });
    expect(redirectPath(done)).toBe('/callback');
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
