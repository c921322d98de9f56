import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, formFor, location } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { beginSignIn, capturedLog, errorOf, eventsOf, linkIn, noticeOf, selfServiceRealm } from '../support/self-service.js';
import { type TestUser, createUser } from '../support/users.js';

/**
 * The account page's "Name and email" (CONTRACT.md §16): the person edits their given and
 * family name, and their email address, which becomes unconfirmed and, when the realm verifies
 * addresses, is confirmed by a link mailed to it. Each form carries the CSRF token of its action;
 * bad input changes nothing; each change is an audit event.
 */
describe('the account page: name and email', () => {
  let t: TestApp;
  let mail: TestMailServer;
  /** A realm that verifies addresses, and one that does not. */
  let verifying: { realm: string; clientId: string };
  let plain: { realm: string; clientId: string };
  const log = capturedLog();

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ logger: log.logger, mail: mail.settings });
    verifying = await selfServiceRealm(t, { email_verification: true });
    plain = await selfServiceRealm(t, {});
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const accountUrl = (realm: string) => `${realmPath(realm)}/account`;
  const namesUrl = (realm: string) => `${BASE_URL}${realmPath(realm)}/account/profile/names`;
  const emailUrl = (realm: string) => `${BASE_URL}${realmPath(realm)}/account/profile/email`;

  async function person(realm: string, claims: Record<string, unknown> = {}): Promise<TestUser> {
    const username = `p-${randomBytes(4).toString('hex')}`;
    const user = await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true, ...claims } });
    log.keep(user.password);
    return user;
  }

  async function signedIn(setup: { realm: string; clientId: string }, user: TestUser): Promise<TestBrowser> {
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(browser, setup.realm, setup.clientId);
    const response = await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    return browser;
  }

  async function post(browser: TestBrowser, realm: string, url: string, fields: Record<string, string>) {
    const page = await browser.get(accountUrl(realm));
    expect(page.statusCode).toBe(200);
    return browser.post(url, { ...formFor(page.body, url), ...fields });
  }

  const claimsOf = async (realm: string, user: TestUser) => (await t.store.users.getById(realm, user.sub))!.claims;

  it('shows the names and the address with whether it is confirmed, each form bound to the browser and its action', async () => {
    const user = await person(plain.realm, { given_name: 'Ada', family_name: 'Lovelace <Byron>' });
    const browser = await signedIn(plain, user);
    const page = (await browser.get(accountUrl(plain.realm))).body;
    expect(page).toContain('<h2>Name and email</h2>');
    expect(page).toContain('name="given_name" autocomplete="given-name" maxlength="100" value="Ada"');
    expect(page).toContain('value="Lovelace &lt;Byron&gt;"');
    expect(page).toContain(`<strong>${user.username}@example.com</strong> Confirmed.`);
    const names = formFor(page, namesUrl(plain.realm));
    const email = formFor(page, emailUrl(plain.realm));
    expect(names.csrf).toEqual(expect.any(String));
    expect(email.csrf).not.toBe(names.csrf);

    // Another form's token, a forged one, or none: refused, nothing changed.
    for (const csrf of [email.csrf, 'forged', undefined]) {
      const response = await browser.post(namesUrl(plain.realm), { ...(csrf === undefined ? {} : { csrf }), given_name: 'Mallory' });
      expect(response.statusCode).toBe(400);
    }
    const other = await signedIn(plain, await person(plain.realm));
    expect((await other.post(namesUrl(plain.realm), { csrf: names.csrf!, given_name: 'Mallory' })).statusCode).toBe(400);
    expect((await claimsOf(plain.realm, user)).given_name).toBe('Ada');
  });

  it('saves the given and family name, removes an emptied one, and records the change', async () => {
    const user = await person(plain.realm, { given_name: 'Ada', family_name: 'Byron' });
    const browser = await signedIn(plain, user);
    const saved = await post(browser, plain.realm, namesUrl(plain.realm), { given_name: '  Augusta Ada ', family_name: '' });
    expect(saved.statusCode).toBe(303);
    expect(redirectPath(saved)).toBe(accountUrl(plain.realm));
    expect(noticeOf((await browser.get(location(saved))).body)).toBe('Your name is saved.');
    const claims = await claimsOf(plain.realm, user);
    expect(claims.given_name).toBe('Augusta Ada');
    expect(claims).not.toHaveProperty('family_name');
    const events = await eventsOf(t, plain.realm, 'user.updated');
    expect(events.find((event) => event.user_id === user.sub)).toMatchObject({ details: { via: 'account', claims: ['given_name', 'family_name'] } });
  });

  it('refuses a name too long or with invisible characters, changing nothing', async () => {
    const user = await person(plain.realm, { given_name: 'Ada' });
    const browser = await signedIn(plain, user);
    for (const given_name of ['x'.repeat(101), 'Ada\u200b', 'Ada\u0007']) {
      const response = await post(browser, plain.realm, namesUrl(plain.realm), { given_name, family_name: 'Byron' });
      expect(response.statusCode).toBe(200);
      expect(errorOf(response.body)).toMatch(/first name|given name/i);
    }
    expect((await claimsOf(plain.realm, user)).given_name).toBe('Ada');
    expect(await claimsOf(plain.realm, user)).not.toHaveProperty('family_name');
  });

  it('changes the address to an unconfirmed one and mails a link to it; the link confirms it, a link sent before does not', async () => {
    const user = await person(verifying.realm);
    const browser = await signedIn(verifying, user);
    // A verification link mailed to the old address before the change.
    const earlier = await t.store.tickets.issue('email_verification', verifying.realm, user.sub, '198.51.100.7', 3600);
    if (earlier === 'limited') throw new Error('limited');
    log.keep(earlier.ticket);

    const address = `new-${randomBytes(3).toString('hex')}@example.org`;
    const changed = await post(browser, verifying.realm, emailUrl(verifying.realm), { email: ` ${address} ` });
    expect(changed.statusCode, changed.body.slice(0, 300)).toBe(303);
    expect(noticeOf((await browser.get(location(changed))).body)).toBe(`Your email address is changed. We mailed a link to ${address}: open it to confirm the address.`);
    expect(await claimsOf(verifying.realm, user)).toMatchObject({ email: address, email_verified: false });
    const page = (await browser.get(accountUrl(verifying.realm))).body;
    expect(page).toContain(`<strong>${address}</strong> Not confirmed yet`);
    const events = await eventsOf(t, verifying.realm, 'user.updated');
    expect(events.find((event) => event.user_id === user.sub)).toMatchObject({ details: { via: 'account', claims: ['email', 'email_verified'] } });

    // The link sent to the old address no longer confirms anything.
    const old = await browser.get(`${realmPath(verifying.realm)}/verify?ticket=${earlier.ticket}`);
    expect(old.statusCode).toBe(400);
    expect((await claimsOf(verifying.realm, user)).email_verified).toBe(false);

    const link = log.keep(linkIn(await mail.nextMail(address), '/verify'));
    const opened = await browser.get(link);
    expect(opened.statusCode).toBeLessThan(400);
    expect(await claimsOf(verifying.realm, user)).toMatchObject({ email: address, email_verified: true });
  });

  it('in a realm that does not verify addresses, changes the address, unconfirmed, and mails nothing', async () => {
    const user = await person(plain.realm);
    const browser = await signedIn(plain, user);
    const address = `plain-${randomBytes(3).toString('hex')}@example.org`;
    const before = mail.received.length;
    const changed = await post(browser, plain.realm, emailUrl(plain.realm), { email: address });
    expect(noticeOf((await browser.get(location(changed))).body)).toBe('Your email address is changed.');
    expect(await claimsOf(plain.realm, user)).toMatchObject({ email: address, email_verified: false });
    expect(mail.received.slice(before).filter((received) => received.to.includes(address))).toEqual([]);
  });

  it('refuses a malformed address, and another person\u2019s, changing nothing', async () => {
    const owner = await person(plain.realm);
    const user = await person(plain.realm);
    const browser = await signedIn(plain, user);
    for (const email of ['not-an-address', 'two@@example.org', `${'x'.repeat(250)}@example.org`, 'a b@example.org']) {
      const response = await post(browser, plain.realm, emailUrl(plain.realm), { email });
      expect(response.statusCode).toBe(200);
      expect(errorOf(response.body)).toBe('Enter a valid email address.');
    }
    const taken = await post(browser, plain.realm, emailUrl(plain.realm), { email: `${owner.username.toUpperCase()}@example.com` });
    expect(taken.statusCode).toBe(200);
    expect(errorOf(taken.body)).toBe('That email address cannot be used for your account.');
    expect(await claimsOf(plain.realm, user)).toMatchObject({ email: `${user.username}@example.com`, email_verified: true });
    const same = await post(browser, plain.realm, emailUrl(plain.realm), { email: `${user.username}@EXAMPLE.com` });
    expect(noticeOf((await browser.get(location(same))).body)).toBe('That is your address already.');
    expect((await claimsOf(plain.realm, user)).email_verified).toBe(true);
  });

  it('asks for a recent sign-in before the address changes, as other changes of how the person signs in do', async () => {
    const user = await person(plain.realm);
    const browser = await signedIn(plain, user);
    const page = await browser.get(accountUrl(plain.realm));
    await t.store.db.query("UPDATE sessions SET auth_time = auth_time - interval '1 hour' WHERE user_id = $1::uuid", [user.sub]);
    const response = await browser.post(emailUrl(plain.realm), { ...formFor(page.body, emailUrl(plain.realm)), email: 'late@example.org' });
    expect(response.statusCode).toBe(303);
    expect(redirectPath(response)).toBe(`${realmPath(plain.realm)}/login`);
    expect((await claimsOf(plain.realm, user)).email).toBe(`${user.username}@example.com`);
  });

  it('shows the page in German with the names form and dates written as German writes them', async () => {
    const user = await person(plain.realm);
    const browser = await signedIn(plain, user);
    browser.headers = { 'accept-language': 'de' };
    const page = (await browser.get(`${accountUrl(plain.realm)}?ui_locales=de`)).body;
    expect(page).toContain('<h2>Name und E-Mail</h2>');
    expect(page).toContain('Namen speichern');
    // A session's times: a <time> with the instant, written the German way in UTC until the page's script writes local time.
    expect(page).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z" data-local="minute">\d{1,2}\. [A-Z][a-zä]+\.? \d{4}, \d\d:\d\d UTC<\/time>/);
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
