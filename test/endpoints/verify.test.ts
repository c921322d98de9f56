import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { expectErrorPage } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { GOOD_PASSWORD, beginSignIn, capturedLog, errorOf, eventsOf, exchangeCode, hrefWith, linkIn, noticeOf, selfServiceRealm } from '../support/self-service.js';
import { createUser, passwordGrant } from '../support/users.js';

const name = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * Email verification (CONTRACT.md §9): the mail's `{issuer}/verify?ticket=…` link, the sign-in
 * that stops until it is opened, and the `email_verification` node.
 */
describe('email verification', () => {
  let mail: TestMailServer;
  let t: TestApp & { clock: TestClock };
  const log = capturedLog();

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings, logger: log.logger, clock: true });
    log.keep(GOOD_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const claimsOf = async (realm: string, username: string) => (await t.admin.request('GET', `/realms/${realm}/users/${username}`)).json().claims;

  /** Registers at the sign-in's link, which goes back to the sign-in page. */
  async function registerFromSignIn(realm: string, clientId: string) {
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const link = hrefWith((await browser.get(loginUrl)).body, '/register')!;
    const username = name('vera');
    const email = `${username}@example.com`;
    const registered = await browser.submit(link, await browser.get(link), { username, email, password: GOOD_PASSWORD });
    expect(location(registered)).toBe(loginUrl);
    return { browser, loginUrl, verifier, username, email };
  }

  it('mails a new person a link that confirms the address once; a used or unknown link is a page saying so', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true, email_verification: true });
    const browser = new TestBrowser(t.app, BASE_URL);
    const url = `${realmPath(realm)}/register`;
    const username = name('ida');
    const email = `${username}@example.com`;
    const done = await browser.submit(url, await browser.get(url), { username, email, password: GOOD_PASSWORD });
    expect(noticeOf(done.body)).toBe(`Your account is created. We sent a mail to ${email}: open its link to confirm your email address.`);

    const received = await mail.nextMail(email);
    expect(received.subject).toBe(`Confirm your email address for ${realm}`);
    const link = log.keep(linkIn(received, '/verify'));
    expect(link.startsWith(`${BASE_URL}${realmPath(realm)}/verify?ticket=`)).toBe(true);
    expect((await claimsOf(realm, username)).email_verified).toBe(false);

    const opened = await new TestBrowser(t.app, BASE_URL).get(link);
    expect(opened.statusCode).toBe(200);
    expect(noticeOf(opened.body)).toBe('Your email address is confirmed. If you were signing in, return to that page and continue.');
    expect((await claimsOf(realm, username)).email_verified).toBe(true);
    const [event] = await eventsOf(t, realm, 'user.email_verified');
    expect(event?.user_id).toBe((await t.admin.request('GET', `/realms/${realm}/users/${username}`)).json().sub);

    const again = await new TestBrowser(t.app, BASE_URL).get(link);
    expectErrorPage(again, 400);
    expect(errorOf(again.body)).toBe('This link does not work: it was used already, or it expired. Sign in to have a new mail sent.');
    for (const ticket of ['', 'x', 'A'.repeat(43), 'A'.repeat(5000)]) {
      expectErrorPage(await new TestBrowser(t.app, BASE_URL).get(`${realmPath(realm)}/verify?ticket=${ticket}`), 400);
    }
    expect(await eventsOf(t, realm, 'user.email_verified')).toHaveLength(1);
  });

  it('stops the sign-in after the password until the address is confirmed, then goes on', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true, email_verification: true });
    const { browser, loginUrl, verifier, email } = await registerFromSignIn(realm, clientId);
    const first = await mail.nextMail(email);

    const waiting = await browser.get(loginUrl);
    expect(waiting.statusCode).toBe(200);
    expect(waiting.body).toContain('<h1>Confirm your email address</h1>');
    expect(waiting.body).toContain('name="resend"');
    const notYet = await browser.submit(loginUrl, waiting, {});
    expect(errorOf(notYet.body)).toBe('Your email address is not confirmed yet: open the link in the mail we sent you, then continue.');

    const resent = await browser.submit(loginUrl, waiting, { resend: '1' });
    expect(noticeOf(resent.body)).toBe('We sent you a new mail. Open its link, then continue here.');
    const second = await mail.nextMail(email);
    expect(log.keep(linkIn(second, '/verify'))).not.toBe(log.keep(linkIn(first, '/verify')));

    expect((await new TestBrowser(t.app, BASE_URL).get(linkIn(second, '/verify'))).statusCode).toBe(200);
    // Using one ticket ends the person's others.
    expectErrorPage(await new TestBrowser(t.app, BASE_URL).get(linkIn(first, '/verify')), 400);

    const signedIn = await browser.submit(loginUrl, waiting, {});
    const { claims } = await exchangeCode(t, realm, clientId, signedIn, verifier);
    expect(claims.email_verified).toBe(true);
    expect(claims.amr).toEqual(['pwd']);
  });

  it('sends the mail again at most as the tickets allow: 5 per person in 15 minutes', async () => {
    const { realm, clientId } = await selfServiceRealm(t, { self_registration: true, email_verification: true });
    const { browser, loginUrl, email } = await registerFromSignIn(realm, clientId);
    await mail.nextMail(email);
    const page = await browser.get(loginUrl);
    for (let sent = 2; sent <= 5; sent++) {
      expect(noticeOf((await browser.submit(loginUrl, page, { resend: '1' })).body)).toBe('We sent you a new mail. Open its link, then continue here.');
      await mail.nextMail(email);
    }
    const limited = await browser.submit(loginUrl, page, { resend: '1' });
    expect(errorOf(limited.body)).toBe('Too many mails were sent to you. Wait a few minutes, then try again.');
    expect(mail.received.filter((received) => received.to.includes(email))).toHaveLength(5);
  });

  it('refuses a link once its ticket_lifetime has passed', async () => {
    const { realm } = await selfServiceRealm(t, { self_registration: true, email_verification: true, ticket_lifetime: 1 });
    const browser = new TestBrowser(t.app, BASE_URL);
    const url = `${realmPath(realm)}/register`;
    const username = name('late');
    await browser.submit(url, await browser.get(url), { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
    const link = linkIn(await mail.nextMail(`${username}@example.com`), '/verify');
    await t.clock.advance(1_500);
    expectErrorPage(await browser.get(link), 400);
    expect((await claimsOf(realm, username)).email_verified).toBe(false);
  });

  it('lets people through whose address is confirmed, or who have none; the password grant refuses the others', async () => {
    const { realm } = await selfServiceRealm(t, { email_verification: true });
    const service = await t.admin.createClient(realm, { grant_types: ['password'], scope: 'openid' });
    const client = { clientId: service.client_id, secret: service.client_secret as string };
    const confirmed = await createUser(t.admin, realm, name('ok'), { claims: { email: 'ok@example.com', email_verified: true } });
    const without = await createUser(t.admin, realm, name('none'));
    const unconfirmed = await createUser(t.admin, realm, name('no'), { claims: { email: 'no@example.com' } });
    expect((await passwordGrant(t.app, realm, client, confirmed)).statusCode).toBe(200);
    expect((await passwordGrant(t.app, realm, client, without)).statusCode).toBe(200);
    const refused = await passwordGrant(t.app, realm, client, unconfirmed);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: 'invalid_grant', error_description: 'the person has not confirmed their email address: the sign-in page says how' });
  });

  it('runs a journey\'s email_verification node: at once for a confirmed address, else the page that waits', async () => {
    const { realm, clientId } = await selfServiceRealm(t, {});
    const journey = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'mail' } }, mail: { type: 'email_verification', next: { success: 'done' } } } };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, journey)).statusCode).toBeLessThan(300);
    const client = { client_id: clientId };
    const confirmed = await createUser(t.admin, realm, name('ok'), { claims: { email: 'ok@example.com', email_verified: true } });
    const unconfirmed = await createUser(t.admin, realm, name('no'), { claims: { email: `${name('no')}@example.com`, email_verified: false } });

    const one = new TestBrowser(t.app, BASE_URL);
    const signIn = await beginSignIn(one, realm, client.client_id);
    const passed = await one.submit(signIn.loginUrl, await one.get(signIn.loginUrl), { username: confirmed.username, password: confirmed.password });
    await exchangeCode(t, realm, client.client_id, passed, signIn.verifier);

    const other = new TestBrowser(t.app, BASE_URL);
    const second = await beginSignIn(other, realm, client.client_id);
    const stopped = await other.submit(second.loginUrl, await other.get(second.loginUrl), { username: unconfirmed.username, password: unconfirmed.password });
    expect(location(stopped)).toBe(second.loginUrl);
    const page = await other.get(second.loginUrl);
    expect(page.body).toContain('<h1>Confirm your email address</h1>');
    // This person never had a mail: asking for it sends the first.
    expect(noticeOf((await other.submit(second.loginUrl, page, { resend: '1' })).body)).toBe('We sent you a new mail. Open its link, then continue here.');
    expect((await new TestBrowser(t.app, BASE_URL).get(linkIn(await mail.nextMail((await claimsOf(realm, unconfirmed.username)).email), '/verify'))).statusCode).toBe(200);
    await exchangeCode(t, realm, client.client_id, await other.submit(second.loginUrl, page, {}), second.verifier);
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
