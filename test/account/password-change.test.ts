import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, formFor, location } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';
import { beginSignIn, capturedLog, errorOf, eventsOf, exchangeCode, noticeOf, selfServiceRealm } from '../support/self-service.js';
import { type TestUser, createUser } from '../support/users.js';

const NEW_PASSWORD = 'amber-harbour-58-quietly';

/**
 * The account page's password change (CONTRACT.md §9): the current password, counted like a
 * sign-in's; the new one under the realm's policy; every other session ended and every grant
 * revoked, this browser signed in still.
 */
describe('the account page: changing the password', () => {
  let t: TestApp;
  let realm: string;
  let clientId: string;

  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ logger: log.logger });
    log.keep(NEW_PASSWORD);
    ({ realm, clientId } = await selfServiceRealm(t, {}));
  });
  afterAll(() => t?.close());

  const accountUrl = () => `${realmPath(realm)}/account`;
  const changeUrl = () => `${BASE_URL}${realmPath(realm)}/account/password`;
  async function person(): Promise<TestUser> {
    const username = `p-${randomBytes(4).toString('hex')}`;
    // An address is one person's: each their own.
    const user = await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com` } });
    log.keep(user.password);
    return user;
  }

  /** A browser signed in as the person through the code flow, and its tokens. */
  async function signIn(user: TestUser, password = user.password) {
    const browser = new TestBrowser(t.app, BASE_URL);
    const { loginUrl, verifier } = await beginSignIn(browser, realm, clientId);
    const response = await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password });
    return { browser, tokens: await exchangeCode(t, realm, clientId, response, verifier) };
  }

  async function change(browser: TestBrowser, fields: Record<string, string>) {
    const page = await browser.get(accountUrl());
    expect(page.statusCode).toBe(200);
    return browser.post(changeUrl(), { ...formFor(page.body, changeUrl()), ...fields });
  }

  const refresh = (token: string) => postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

  it('shows a section with the current and the new password, its form bound to the browser', async () => {
    const user = await person();
    const { browser } = await signIn(user);
    const page = (await browser.get(accountUrl())).body;
    expect(page).toContain('<h2>Password</h2>');
    expect(page).toContain('name="current_password"');
    expect(page).toContain('name="new_password"');
    expect(formFor(page, changeUrl()).csrf).toEqual(expect.any(String));
    const forged = await browser.post(changeUrl(), { csrf: 'forged', current_password: user.password, new_password: NEW_PASSWORD });
    expect(forged.statusCode).toBe(400);
  });

  it('changes the password: other sessions end, grants are revoked, this browser stays signed in', async () => {
    const user = await person();
    const here = await signIn(user);
    const there = await signIn(user);
    const changed = await change(here.browser, { current_password: user.password, new_password: NEW_PASSWORD });
    expect(changed.statusCode).toBe(303);
    expect(redirectPath(changed)).toBe(accountUrl());
    const page = await here.browser.get(location(changed));
    expect(page.statusCode).toBe(200);
    expect(noticeOf(page.body)).toBe('Your password is changed. You are signed out everywhere else.');
    // This browser's sign-in goes on, in a session of its own.
    const sessions = [...page.body.matchAll(/<li class="session">/g)];
    expect(sessions).toHaveLength(1);
    expect(page.body).toContain('(this browser)');
    expect(page.body).not.toContain(decodeJwt(here.tokens.id_token).sid as string);

    expect(redirectPath(await there.browser.get(accountUrl()))).toBe(`${realmPath(realm)}/login`);
    for (const tokens of [here.tokens, there.tokens]) expect((await refresh(tokens.refresh_token)).json().error).toBe('invalid_grant');
    const [event] = await eventsOf(t, realm, 'user.password_changed');
    expect(event).toMatchObject({ user_id: user.sub, details: { via: 'account' } });
    expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);

    await signIn(user, NEW_PASSWORD);
  });

  it('refuses a wrong current password, and a new one the policy refuses, changing nothing', async () => {
    const user = await person();
    const { browser, tokens } = await signIn(user);
    const wrong = await change(browser, { current_password: 'not-the-password', new_password: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(200);
    expect(errorOf(wrong.body)).toBe('The current password is incorrect.');
    expect(wrong.body).not.toContain(NEW_PASSWORD);
    const weak = await change(browser, { current_password: user.password, new_password: user.username });
    expect(errorOf(weak.body)).toBe('The password must not be the username.');
    const common = await change(browser, { current_password: user.password, new_password: 'qwertyuiop' });
    expect(errorOf(common.body)).toBe('The password is one of the most common passwords: choose another.');
    expect((await refresh(tokens.refresh_token)).statusCode).toBe(200);
    expect(await eventsOf(t, realm, 'user.password_changed')).toEqual(expect.not.arrayContaining([expect.objectContaining({ user_id: user.sub })]));
  });

  it('counts wrong current passwords in the account\'s brute-force budget: past it, even the right one is refused, and sign-in too', async () => {
    const user = await person();
    const { browser } = await signIn(user);
    browser.remoteAddress = '203.0.113.40';
    for (let i = 0; i < 10; i++) await change(browser, { current_password: `wrong-${i}`, new_password: NEW_PASSWORD });
    const locked = await change(browser, { current_password: user.password, new_password: NEW_PASSWORD });
    expect(errorOf(locked.body)).toMatch(/^Too many failed attempts\. Try again in \d+ minutes?\.$/);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);

    const other = new TestBrowser(t.app, BASE_URL);
    const { loginUrl } = await beginSignIn(other, realm, clientId);
    const refused = await other.submit(loginUrl, await other.get(loginUrl), { username: user.username, password: user.password });
    expect(refused.statusCode).toBe(429);
  }, 60_000);

  it('asks for a recent sign-in first, as other credential changes do', async () => {
    const user = await person();
    const { browser } = await signIn(user);
    const page = await browser.get(accountUrl());
    await t.store.db.query("UPDATE sessions SET auth_time = auth_time - interval '1 hour' WHERE user_id = $1::uuid", [user.sub]);
    const response = await browser.post(changeUrl(), { ...formFor(page.body, changeUrl()), current_password: user.password, new_password: NEW_PASSWORD });
    expect(response.statusCode).toBe(303);
    expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
    await signIn(user);
  });

  it('wrote none of the passwords or tickets above to the log', () => {
    log.expectNoSecrets();
  });
});
