import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { expectErrorPage, issuerOf } from '../support/flow-helpers.js';
import { TestBrowser } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { GOOD_PASSWORD, beginSignIn, capturedLog, errorOf, linkIn, noticeOf, selfServiceRealm } from '../support/self-service.js';
import { createUser } from '../support/users.js';

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * What the pages that mail cannot be made to do to an address (CONTRACT.md §7): at most 5 mails
 * to one recipient in an hour per realm, counted in the database before sending; an address is
 * one person's, and registering it again mails its owner instead of making anyone; no mail to
 * an unconfirmed address carries the username whoever typed it chose; whether a username is
 * taken is told only within the registration limit per address (an IPv6 address by its /64).
 */
describe('mail limits and addresses of one person', () => {
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
  const mailsTo = (address: string) => mail.received.filter((received) => received.to.includes(address));
  const userOf = (realm: string, username: string) => t.admin.request('GET', `/realms/${realm}/users/${encodeURIComponent(username)}`);
  /** The sign-in pages' per-minute limit is off: only the limits under test count. */
  const realmOf = (settings: Record<string, unknown> = {}) =>
    selfServiceRealm(t, { self_registration: true, email_verification: true, password_reset: true, rate_limit_sign_in: null, ...settings });

  it('sends one address at most 5 mails an hour: 40 registrations with it from one /64 deliver 5', async () => {
    const { realm } = await realmOf();
    const victim = `${name('victim')}@example.com`;
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) {
      browser.remoteAddress = `2001:db8:40:1::${i.toString(16)}`;
      const answer = await browser.submit(registerUrl(realm), form, { username: name('flood'), email: i % 2 ? victim : victim.toUpperCase(), password: GOOD_PASSWORD });
      statuses.push(answer.statusCode);
    }
    // Each registration awaits its mail: all have been sent or refused by now.
    expect(mailsTo(victim).length + mailsTo(victim.toUpperCase()).length).toBe(5);
    // The first made the address's person; none after it made anyone.
    const people = (await t.admin.request('GET', `/realms/${realm}/users?search=${encodeURIComponent(victim)}`)).json().users;
    expect(people).toHaveLength(1);
    // Thirty tries from the /64, then 429: the registration limit per address.
    expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(30).every((status) => status === 429)).toBe(true);
  });

  it('holds under concurrency, for registration and reset together: 12 at once from 12 addresses send 5', async () => {
    const { realm } = await realmOf();
    const owner = await createUser(t.admin, realm, name('owner'), { claims: { email: `${name('owner')}@example.com`, email_verified: true } });
    const email = (await userOf(realm, owner.username)).json().claims.email as string;
    const attempts = Array.from({ length: 12 }, async (_, i) => {
      const browser = new TestBrowser(t.app, BASE_URL);
      browser.remoteAddress = `198.51.100.${i + 1}`;
      if (i % 2) {
        const form = await browser.get(`${realmPath(realm)}/reset`);
        return browser.submit(`${realmPath(realm)}/reset`, form, { username: owner.username });
      }
      const form = await browser.get(registerUrl(realm));
      return browser.submit(registerUrl(realm), form, { username: name('again'), email, password: GOOD_PASSWORD });
    });
    for (const answer of await Promise.all(attempts)) expect(answer.statusCode).toBe(200);
    // Resets mail after their answer: the fifth mail arrives; after it, none is on its way (each was refused before sending).
    for (let i = 0; i < 5; i++) await mail.nextMail(email);
    expect(mailsTo(email)).toHaveLength(5);
  });

  it('answers a registration with a taken address as a success, makes no one, and mails the owner a link to their account', async () => {
    const { realm } = await realmOf();
    const owner = await createUser(t.admin, realm, name('owner'), { claims: { email: `${name('owner')}@example.com`, email_verified: true } });
    const email = (await userOf(realm, owner.username)).json().claims.email as string;
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));

    const fresh = `${name('fresh')}@example.com`;
    const created = await browser.submit(registerUrl(realm), form, { username: name('new'), email: fresh, password: GOOD_PASSWORD });
    const username = name('intruder');
    const taken = await browser.submit(registerUrl(realm), form, { username, email: email.toUpperCase(), password: GOOD_PASSWORD });
    expect(taken.statusCode).toBe(created.statusCode);
    expect(taken.body.replaceAll(email.toUpperCase(), 'ADDRESS')).toBe(created.body.replaceAll(fresh, 'ADDRESS'));
    expect(noticeOf(taken.body)).toBe(`Your account is created. We sent a mail to ${email.toUpperCase()}: open its link to confirm your email address.`);
    expect((await userOf(realm, username)).statusCode).toBe(404);

    const told = await mail.nextMail(email);
    expect(told.subject).toBe(`Someone tried to create a ${realm} account with your email address`);
    expect(told.text).toContain(`It belongs to your account "${owner.username}" already, so no account was created.`);
    expect(told.text).toContain(`${issuerOf(realm)}/account`);
    expect(told.text).not.toContain(username);
  });

  it("in a journey's register node, makes no one with a taken address, mails its owner, and says a mail was sent", async () => {
    const { realm, clientId } = await realmOf({ email_verification: false });
    const journey = { start: 'new', nodes: { new: { type: 'register', next: { success: 'done' } } } };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, journey)).statusCode).toBeLessThan(300);
    const owner = await createUser(t.admin, realm, name('owner'), { claims: { email: `${name('owner')}@example.com` } });
    const email = (await userOf(realm, owner.username)).json().claims.email as string;
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(browser, realm, clientId);
    const username = name('intruder');
    const answer = await browser.submit(loginUrl, await browser.get(loginUrl), { username, email, password: GOOD_PASSWORD });
    expect(answer.statusCode).toBe(200);
    expect(errorOf(answer.body)).toBe(`We sent a mail to ${email}: follow it to go on.`);
    expect((await userOf(realm, username)).statusCode).toBe(404);
    const told = await mail.nextMail(email);
    // The owner's address is not confirmed: the mail names no username.
    expect(told.text).toContain('It belongs to your account already, so no account was created.');
    expect(told.text).not.toContain(owner.username);
  });

  it('names no username in a mail to an address not yet confirmed', async () => {
    const { realm } = await realmOf();
    const chosen = 'visit-evil.example-now';
    const email = `${name('someone')}@example.com`;
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));
    expect((await browser.submit(registerUrl(realm), form, { username: chosen, email, password: GOOD_PASSWORD })).statusCode).toBe(200);
    const verification = await mail.nextMail(email);
    expect(verification.text).toContain('Hello,');
    for (const part of [verification.text, verification.html, verification.subject]) expect(part).not.toContain(chosen);
    log.keep(linkIn(verification, '/verify'));

    // A reset mailed to the same unconfirmed address names no one either.
    const reset = new TestBrowser(t.app, BASE_URL);
    await reset.submit(`${realmPath(realm)}/reset`, await reset.get(`${realmPath(realm)}/reset`), { username: chosen });
    const resetMail = await mail.nextMail(email);
    log.keep(linkIn(resetMail, '/reset'));
    for (const part of [resetMail.text, resetMail.html]) expect(part).not.toContain(chosen);
    expect(resetMail.text).toContain(`Someone asked to reset the password of your ${realm} account.`);
  });

  it('tells whether a username is taken at most 30 times in 15 minutes per address, an IPv6 address by its /64', async () => {
    const { realm } = await realmOf({ email_verification: false });
    const taken = await createUser(t.admin, realm, name('taken'));
    const browser = new TestBrowser(t.app, BASE_URL);
    const form = await browser.get(registerUrl(realm));
    const attempt = (address: string) => {
      browser.remoteAddress = address;
      return browser.submit(registerUrl(realm), form, { username: taken.username, email: `${name('x')}@example.com`, password: GOOD_PASSWORD });
    };
    for (let i = 1; i <= 30; i++) {
      const answer = await attempt(`2001:db8:77:5::${i.toString(16)}`);
      expect(errorOf(answer.body)).toBe('This username is taken: choose another.');
    }
    const limited = await attempt('2001:db8:77:5:ffff:1:2:3');
    expectErrorPage(limited, 429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
    expect(limited.body).not.toContain('This username is taken');
    // Another network asks afresh.
    expect(errorOf((await attempt('2001:db8:77:6::1')).body)).toBe('This username is taken: choose another.');
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
