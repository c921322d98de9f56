import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { expectErrorPage, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, obtainCode } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { postForm, realmPath } from '../support/oauth.js';
import { beginSignIn, capturedLog, errorOf, eventsOf, exchangeCode, hrefWith, linkIn, selfServiceRealm } from '../support/self-service.js';
import { createUser } from '../support/users.js';

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const NEW_PASSWORD = 'copper-meadow-47-sailing';

/** Password reset (CONTRACT.md §9): `{issuer}/reset`, its mail, and the page of the mail's link. */
describe('password reset', () => {
  let mail: TestMailServer;
  let t: TestApp & { clock: TestClock };
  const log = capturedLog();

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings, logger: log.logger, clock: true });
    log.keep(NEW_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const resetUrl = (realm: string) => `${realmPath(realm)}/reset`;
  const mailsTo = (address: string) => mail.received.filter((received) => received.to.includes(address)).length;

  /** Asks for a link from a browser of its own at `address`, naming `typed`. */
  async function ask(realm: string, typed: string, address = '192.0.2.10') {
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.remoteAddress = address;
    const form = await browser.get(resetUrl(realm));
    return browser.submit(resetUrl(realm), form, { username: typed });
  }

  /** A person with an email address, the code flow's tokens of theirs, and a browser signed in as them. */
  async function signedInPerson(realm: string, clientId: string) {
    const username = name('rita');
    const email = `${username}@example.com`;
    const user = await createUser(t.admin, realm, username, { claims: { email, email_verified: true } });
    log.keep(user.password);
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const signedIn = await browser.submit(loginUrl, await browser.get(loginUrl), { username, password: user.password });
    const tokens = await exchangeCode(t, realm, clientId, signedIn, verifier);
    return { user, email, browser, tokens };
  }

  it('is offered only while password_reset is on: linked from the sign-in page, else 404', async () => {
    const off = await selfServiceRealm(t, {});
    expectErrorPage(await new TestBrowser(t.app, BASE_URL).get(resetUrl(off.realm)), 404);
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(browser, realm, clientId);
    const link = hrefWith((await browser.get(loginUrl)).body, '/reset');
    expect(link).toMatch(/\/reset\?transaction=/);
    const form = await browser.get(link!);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('name="username"');
    expect(hrefWith(form.body, '/login')).toBe(loginUrl);
  });

  it('answers the same page and status whether or not the name is someone\'s, and mails only a person', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true });
    const { user, email } = await signedInPerson(realm, clientId);
    const known = await ask(realm, user.username);
    const byEmail = await ask(realm, email.toUpperCase());
    const unknown = await ask(realm, name('nobody'));
    const unknownEmail = await ask(realm, 'nobody@example.com');
    for (const response of [known, byEmail, unknown, unknownEmail]) {
      expect(response.statusCode).toBe(known.statusCode);
      expect(response.body).toBe(known.body);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect(known.statusCode).toBe(200);
    expect(known.body).toContain('If this is the username or email address of an account, we sent a link to its email address.');

    const first = await mail.nextMail(email);
    expect(first.subject).toBe(`Reset your ${realm} password`);
    expect(linkIn(first, '/reset')).toMatch(new RegExp(`^${BASE_URL}${realmPath(realm)}/reset\\?ticket=`));
    await mail.nextMail(email);
    await sleep(300);
    expect(mailsTo(email)).toBe(2);
    expect(mailsTo('nobody@example.com')).toBe(0);
  });

  it('mails a disabled person nothing, with the same page', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true });
    const disabled = await signedInPerson(realm, clientId);
    const response = await t.admin.request('PATCH', `/realms/${realm}/users/${disabled.user.username}`, { enabled: false });
    expect(response.statusCode, response.body).toBe(200);
    const enabled = await signedInPerson(realm, clientId);
    const forDisabled = await ask(realm, disabled.user.username);
    const byEmail = await ask(realm, disabled.email);
    const forEnabled = await ask(realm, enabled.user.username);
    for (const answer of [forDisabled, byEmail]) {
      expect(answer.statusCode).toBe(forEnabled.statusCode);
      expect(answer.body).toBe(forEnabled.body);
    }
    // The enabled person's mail arrives; the disabled person's would have gone at the same time.
    await mail.nextMail(enabled.email);
    await sleep(300);
    expect(mailsTo(disabled.email)).toBe(0);
  });

  it('sets a new password from the link once: the policy first, then every session and grant of the person ends', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true });
    const { user, email, browser: signedIn, tokens } = await signedInPerson(realm, clientId);
    await ask(realm, user.username);
    const link = log.keep(linkIn(await mail.nextMail(email), '/reset'));

    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(link);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('name="password"');
    expect(form.body).toContain(`<strong>${user.username}</strong>`);
    const weak = await browser.submit(link, form, { password: 'short' });
    expect(errorOf(weak.body)).toBe('The password must be at least 8 characters.');
    expect(weak.body).toContain('name="password"');

    const done = await browser.submit(link, weak, { password: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Your password is changed, and you are signed out everywhere.');
    expect(done.body).not.toContain(NEW_PASSWORD);

    // The grants and sessions are gone.
    const refresh = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refresh.json().error).toBe('invalid_grant');
    const account = await signedIn.get(`${realmPath(realm)}/account`);
    expect(redirectPath(account)).toBe(`${realmPath(realm)}/login`);
    const [event] = await eventsOf(t, realm, 'user.password_reset');
    expect(event?.user_id).toBe(user.sub);
    expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);

    // The old password no longer works; the new one does.
    const fresh = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(fresh, realm, clientId);
    const wrong = await fresh.submit(loginUrl, await fresh.get(loginUrl), { username: user.username, password: user.password });
    expect(errorOf(wrong.body)).toBe('The username or password is incorrect.');
    await obtainCode(new TestBrowser(t.app, BASE_URL), realm, { clientId, username: user.username, password: NEW_PASSWORD });

    // The link worked once.
    expectErrorPage(await browser.get(link), 400);
    const replay = await browser.post(link, { ...hiddenInputs(form.body), password: 'another-fine-password-9' });
    expectErrorPage(replay, 400);
    expect(errorOf(replay.body)).toBe('This link does not work: it was used already, or it expired. Ask for a new one.');
  });

  it('refuses a link once its ticket_lifetime has passed', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true, ticket_lifetime: 1 });
    const { user, email } = await signedInPerson(realm, clientId);
    await ask(realm, user.username);
    const link = linkIn(await mail.nextMail(email), '/reset');
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(link);
    expect(form.statusCode).toBe(200);
    await t.clock.advance(1_500);
    expectErrorPage(await browser.submit(link, form, { password: NEW_PASSWORD }), 400);
    expectErrorPage(await browser.get(link), 400);
  });

  it('mails a person at most 5 links in 15 minutes, saying the same thing each time', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { password_reset: true });
    const { user, email } = await signedInPerson(realm, clientId);
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await ask(realm, user.username, `192.0.2.${100 + i}`));
    for (let i = 0; i < 5; i++) await mail.nextMail(email);
    await sleep(300);
    expect(mailsTo(email)).toBe(5);
    expect(new Set(answers.map((answer) => `${answer.statusCode} ${answer.body}`)).size).toBe(1);
  });

  it('limits the requests of an address to 30 in 15 minutes, whether or not they name anyone', async () => {
    const { realm } = await selfServiceRealm(t, { password_reset: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.remoteAddress = '198.51.100.9';
    const form = await browser.get(resetUrl(realm));
    for (let i = 0; i < 30; i++) expect((await browser.submit(resetUrl(realm), form, { username: name('nobody') })).statusCode).toBe(200);
    const limited = await browser.submit(resetUrl(realm), form, { username: name('nobody') });
    expectErrorPage(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses a form without its CSRF token, a repeated field, and an empty name', async () => {
    const { realm } = await selfServiceRealm(t, { password_reset: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(resetUrl(realm));
    expectErrorPage(await browser.post(resetUrl(realm), { username: 'x' }));
    const repeated = await t.app.inject({
      method: 'POST',
      url: resetUrl(realm),
      headers: { cookie: [...browser.cookies].map(([key, value]) => `${key}=${value}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(hiddenInputs(form.body).csrf!)}&username=a&username=b`,
    });
    expectErrorPage(repeated, 400);
    const empty = await browser.submit(resetUrl(realm), form, { username: '  ' });
    expect(errorOf(empty.body)).toBe('Enter your username or email address.');
    expectErrorPage(await browser.get(`${realmPath(realm)}/reset?ticket=${'A'.repeat(5000)}`), 400);
    expectErrorPage(await browser.get(`${realmPath(realm)}/reset?ticket=${'A'.repeat(43)}`), 400);
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
