import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, formFor, hiddenInputs, location } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { type PasskeyForm, SoftwareAuthenticator, passkeyForm } from '../support/passkeys.js';
import { type TestUser, createUser } from '../support/users.js';

/**
 * Re-authentication on the account page (realm setting `reauthentication_max_age`,
 * CONTRACT.md §5): a change to how a person signs in (a passkey, the authenticator app,
 * recovery codes) needs a sign-in within the window. The sessions' sign-in times are moved
 * back in the database, so that no test waits on a clock.
 */

const ORIGIN = 'https://auth.test';

const noticeOf = (response: LightMyRequestResponse): string | null => new URL(location(response)).searchParams.get('notice');
const codesOn = (page: string): string[] => [...page.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map(([, code]) => code!);
const OLDER_SIGN_IN = /<p class="reauthentication">([^<]*)<\/p>/;

describe('the account page: re-authentication before a credential change', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A realm of its own and a person in it whose authenticator app the admin set up. */
  async function setup(settings: Record<string, unknown> = {}) {
    const realm = await freshRealm(t, settings);
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);
    const enrolled = await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    return { realm, user, account: `${issuerOf(realm)}/account` };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  /** Signs in on the sign-in page a redirect leads to; back on the account page. */
  async function signInFrom(b: TestBrowser, s: Setup, redirect: LightMyRequestResponse): Promise<void> {
    expect(redirect.statusCode, redirect.body.slice(0, 300)).toBe(303);
    expect(redirectPath(redirect)).toBe(`${realmPath(s.realm)}/login`);
    const signIn = location(redirect);
    const signedIn = await b.submit(signIn, await b.get(signIn), { username: s.user.username, password: s.user.password });
    expect(location(signedIn)).toBe(s.account);
  }

  async function signedIn(s: Setup): Promise<TestBrowser> {
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInFrom(b, s, await b.get(s.account));
    return b;
  }

  async function accountPage(b: TestBrowser, s: Setup): Promise<string> {
    const page = await b.get(s.account);
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return page.body;
  }

  /** Moves the person's sign-ins `seconds` into the past, as if they had signed in that long ago. */
  async function signedInAgo(user: TestUser, seconds: number): Promise<void> {
    const moved = await t.store.db.query('UPDATE sessions SET auth_time = auth_time - make_interval(secs => $2) WHERE user_id = $1::uuid', [user.sub, seconds]);
    expect(moved.rowCount).toBeGreaterThan(0);
  }

  const passkeysOf = async (s: Setup) => (await t.store.passkeys.listForUser(s.realm, s.user.sub)).map((passkey) => passkey.name);
  const hasApp = async (s: Setup) => (await t.store.oneTimeCodes.totp(s.realm, s.user.sub))?.confirmedAt !== undefined;
  const recoveryCodeHashes = async (s: Setup) =>
    (await t.store.db.query<{ code_hash: Uint8Array }>('SELECT code_hash FROM recovery_codes WHERE user_id = $1::uuid ORDER BY code_hash', [s.user.sub])).rows.map(
      (row) => Buffer.from(row.code_hash).toString('hex'),
    );

  /** The forms of the three changes, as the account page of a fresh sign-in shows them. */
  async function changeForms(b: TestBrowser, s: Setup) {
    const page = await accountPage(b, s);
    return {
      passkey: passkeyForm(page, 'registration'),
      removeApp: formFor(page, `${s.account}/otp/remove`),
      recoveryCodes: formFor(page, `${s.account}/recovery-codes`),
    };
  }

  async function addPasskey(b: TestBrowser, form: PasskeyForm, name: string) {
    return b.post(form.action!, { ...form.hidden, passkey_name: name, credential: JSON.stringify(new SoftwareAuthenticator(ORIGIN).register(form.options)) });
  }

  it('a fresh sign-in adds a passkey, removes the authenticator app and creates new recovery codes at once; the page says what changed', async () => {
    const s = await setup();
    const b = await signedIn(s);
    const forms = await changeForms(b, s);
    expect(await accountPage(b, s)).not.toMatch(OLDER_SIGN_IN);

    const added = await addPasskey(b, forms.passkey, 'Laptop');
    expect(noticeOf(added)).toBe('The passkey "Laptop" was added.');
    expect((await b.get(location(added))).body).toContain('<p class="notice" role="status">The passkey &quot;Laptop&quot; was added.</p>');
    expect(await passkeysOf(s)).toEqual(['Laptop']);

    const removed = await b.post(`${s.account}/otp/remove`, forms.removeApp);
    expect(noticeOf(removed)).toBe('The authenticator app was removed.');
    expect((await b.get(location(removed))).body).toContain('<p class="notice" role="status">The authenticator app was removed.</p>');
    expect(await hasApp(s)).toBe(false);

    const created = await b.post(`${s.account}/recovery-codes`, forms.recoveryCodes);
    expect(created.statusCode).toBe(200);
    expect(created.body).toContain('<p class="notice" role="status">New recovery codes created.</p>');
    expect(codesOn(created.body)).toHaveLength(10);
    expect(await recoveryCodeHashes(s)).toHaveLength(10);
  });

  it('an older sign-in changes nothing: each change sends the person to sign in again, and after it the change is made', async () => {
    const s = await setup();
    const b = await signedIn(s);
    // The page was shown while the sign-in was fresh; the forms come back after the window.
    const forms = await changeForms(b, s);
    const codesBefore = await recoveryCodeHashes(s);
    await signedInAgo(s.user, 301);

    const refusedPasskey = await addPasskey(b, forms.passkey, 'Stolen');
    const refusedRemoval = await b.post(`${s.account}/otp/remove`, forms.removeApp);
    const refusedCodes = await b.post(`${s.account}/recovery-codes`, forms.recoveryCodes);
    for (const refused of [refusedPasskey, refusedRemoval, refusedCodes]) {
      expect(refused.statusCode, refused.body.slice(0, 300)).toBe(303);
      expect(redirectPath(refused)).toBe(`${realmPath(s.realm)}/login`);
      expect(codesOn(refused.body)).toEqual([]);
    }
    expect(await passkeysOf(s)).toEqual([]);
    expect(await hasApp(s)).toBe(true);
    expect(await recoveryCodeHashes(s)).toEqual(codesBefore);

    // Signing in again leads back to the account page, where each change is now made.
    await signInFrom(b, s, refusedPasskey);
    const again = await changeForms(b, s);
    expect(await accountPage(b, s)).not.toMatch(OLDER_SIGN_IN);
    expect(noticeOf(await addPasskey(b, again.passkey, 'Laptop'))).toBe('The passkey "Laptop" was added.');
    expect(noticeOf(await b.post(`${s.account}/otp/remove`, again.removeApp))).toBe('The authenticator app was removed.');
    const created = await b.post(`${s.account}/recovery-codes`, again.recoveryCodes);
    expect(created.body).toContain('New recovery codes created.');
    expect(await passkeysOf(s)).toEqual(['Laptop']);
    expect(await hasApp(s)).toBe(false);
    expect(await recoveryCodeHashes(s)).toHaveLength(10);
  });

  it('an older sign-in neither deletes a passkey nor sets up an authenticator app', async () => {
    const s = await setup();
    const b = await signedIn(s);
    expect(noticeOf(await addPasskey(b, (await changeForms(b, s)).passkey, 'Laptop'))).toBe('The passkey "Laptop" was added.');
    expect(noticeOf(await b.post(`${s.account}/otp/remove`, (await changeForms(b, s)).removeApp))).toBe('The authenticator app was removed.');
    const page = await accountPage(b, s);
    const enrol = formFor(page, `${s.account}/otp/enrol`);
    const [, deleteBody] = /<form method="post" action="[^"]*\/account\/passkeys\/delete">([\s\S]*?)<\/form>/.exec(page)!;
    await signedInAgo(s.user, 301);

    const deleted = await b.post(`${s.account}/passkeys/delete`, hiddenInputs(deleteBody!));
    expect(redirectPath(deleted)).toBe(`${realmPath(s.realm)}/login`);
    expect(await passkeysOf(s)).toEqual(['Laptop']);
    const enrolment = await b.post(`${s.account}/otp/enrol`, enrol);
    expect(redirectPath(enrolment)).toBe(`${realmPath(s.realm)}/login`);
    expect(enrolment.body).not.toContain('totp-secret');
    expect(await t.store.oneTimeCodes.totp(s.realm, s.user.sub)).toBeUndefined();
  });

  it('checks the form token before the sign-in time: a forged form of an older session is refused as such', async () => {
    const s = await setup();
    const b = await signedIn(s);
    await signedInAgo(s.user, 301);
    const forged = await b.post(`${s.account}/otp/remove`, { csrf: 'forged' });
    expect(forged.statusCode).toBe(400);
    expect(forged.headers.location).toBeUndefined();
    expect(await hasApp(s)).toBe(true);
  });

  it('tells an older session on the page, and offers to sign in again before a passkey is made', async () => {
    const s = await setup();
    const b = await signedIn(s);
    await signedInAgo(s.user, 301);
    const page = await accountPage(b, s);
    expect(OLDER_SIGN_IN.exec(page)?.[1]).toBe('You signed in more than 5 minutes ago: to change how you sign in, you will be asked to sign in again first.');
    // No WebAuthn ceremony: the authenticator would keep a passkey the server then refuses.
    expect(page).not.toContain('data-passkey="registration"');
    expect(page).toContain('<button type="submit">Sign in again to add a passkey</button>');

    const toSignIn = await b.post(`${s.account}/passkeys/register`, formFor(page, `${s.account}/passkeys/register`));
    await signInFrom(b, s, toSignIn);
    const fresh = await accountPage(b, s);
    expect(fresh).not.toMatch(OLDER_SIGN_IN);
    expect(noticeOf(await addPasskey(b, passkeyForm(fresh, 'registration'), 'Phone'))).toBe('The passkey "Phone" was added.');
    expect(await passkeysOf(s)).toEqual(['Phone']);
  });

  it("follows the realm's reauthentication_max_age", async () => {
    const hour = await setup({ reauthentication_max_age: 3600 });
    const b = await signedIn(hour);
    await signedInAgo(hour.user, 1800);
    expect(await accountPage(b, hour)).not.toMatch(OLDER_SIGN_IN);
    const created = await b.post(`${hour.account}/recovery-codes`, (await changeForms(b, hour)).recoveryCodes);
    expect(created.statusCode).toBe(200);
    expect(codesOn(created.body)).toHaveLength(10);
    await signedInAgo(hour.user, 1801);
    expect(OLDER_SIGN_IN.exec(await accountPage(b, hour))?.[1]).toMatch(/^You signed in more than 1 hour ago:/);

    const second = await setup({ reauthentication_max_age: 1 });
    const c = await signedIn(second);
    const forms = await changeForms(c, second);
    await signedInAgo(second.user, 2);
    expect(redirectPath(await c.post(`${second.account}/otp/remove`, forms.removeApp))).toBe(`${realmPath(second.realm)}/login`);
    expect(await hasApp(second)).toBe(true);
  });

  it('lets an older session sign another session out: ending access needs no fresh sign-in', async () => {
    const s = await setup();
    const b = await signedIn(s);
    const other = await signedIn(s);
    await signedInAgo(s.user, 3600);
    const page = await accountPage(b, s);
    const item = page.split('<li class="session">').slice(1).find((each) => !each.includes('(this browser)'))!;
    const ended = await b.post(`${s.account}/sessions/end`, hiddenInputs(item));
    expect(noticeOf(ended)).toBe('The session is signed out.');
    expect(redirectPath(await other.get(s.account))).toBe(`${realmPath(s.realm)}/login`);
  });
});
