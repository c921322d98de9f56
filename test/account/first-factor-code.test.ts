import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { TestBrowser, formFor, location } from '../support/flow.js';
import { type ReceivedMail, type TestMailServer, startMailServer } from '../support/mail.js';
import { SoftwareAuthenticator, passkeyForm } from '../support/passkeys.js';
import { createUser } from '../support/users.js';

/**
 * A first second factor set up on the account page asks first for a code mailed to the
 * person's verified address, as during a sign-in (CONTRACT.md §8). Without it, a journey that
 * asks a second factor only of some clients would let whoever holds the password sign in to the
 * account page with it alone, set up an authenticator app of their own, and pass those
 * clients' second step with its codes. A real SMTP server gets the mails.
 */
const ORIGIN = 'https://auth.test';
const SECRET = /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/;
const noticeOf = (response: LightMyRequestResponse): string | null => new URL(location(response)).searchParams.get('notice');
const codeIn = (mail: ReceivedMail): string => {
  const code = /^(\d{6})$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in ${mail.text}`);
  return code;
};
const appCode = (base32: string): string => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

/** The journey: a password, and a one-time code only for the client `bank`; the account page's sign-in has no client. */
const perClientJourney = (bank: string) => ({
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'which' } },
    which: { type: 'condition', if: { client_in: [bank] }, next: { true: 'otp', false: 'done' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
});

/** Within `t`: a realm of the journey above, a person in it (verified address unless told), and their browser signed in to the account page. */
async function signedInPerson(t: TestApp, options: { verified?: boolean } = {}) {
  const realm = await freshRealm(t);
  const bank = (await t.admin.createClient(realm, { client_type: 'public', redirect_uris: ['https://bank.example/cb'], grant_types: ['authorization_code'], scope: 'openid' })).client_id;
  const journey = await t.admin.request('PUT', `/realms/${realm}/journeys/default`, perClientJourney(bank));
  expect(journey.statusCode, journey.body).toBe(200);
  const email = `p-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`, { claims: { email, email_verified: options.verified ?? true } });
  const account = `${issuerOf(realm)}/account`;
  const b = new TestBrowser(t.app, t.baseUrl);
  const signIn = location(await b.get(account));
  const signedIn = await b.submit(signIn, await b.get(signIn), { username: user.username, password: user.password });
  expect(location(signedIn), 'the password alone signs in to the account page').toBe(account);
  const page = async () => {
    const answer = await b.get(account);
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(200);
    return answer.body;
  };
  const hasApp = async () => (await t.store.oneTimeCodes.totp(realm, user.sub))?.confirmedAt !== undefined;
  const passkeys = async () => (await t.store.passkeys.listForUser(realm, user.sub)).map((passkey) => passkey.name);
  return { realm, user, email, account, b, page, hasApp, passkeys };
}
type Person = Awaited<ReturnType<typeof signedInPerson>>;

/** Sets up an authenticator app on the account page, from the enrol form `enrol`; whether it was confirmed. */
async function enrolApp(p: Person, enrol: Record<string, string>): Promise<void> {
  const enrolment = await p.b.post(`${p.account}/otp/enrol`, enrol);
  expect(enrolment.statusCode, enrolment.body.slice(0, 300)).toBe(200);
  const secret = SECRET.exec(enrolment.body)?.[1]?.replace(/ /g, '');
  expect(secret, enrolment.body.slice(0, 500)).toBeDefined();
  const confirmed = await p.b.post(`${p.account}/otp/confirm`, { ...formFor(enrolment.body, `${p.account}/otp/confirm`), otp: appCode(secret!) });
  expect(noticeOf(confirmed)).toBe('Your authenticator app is set up.');
}

const addPasskey = (p: Person, form: ReturnType<typeof passkeyForm>, name: string) =>
  p.b.post(form.action!, { ...form.hidden, passkey_name: name, credential: JSON.stringify(new SoftwareAuthenticator(ORIGIN).register(form.options)) });

describe('the account page: a code mailed before a first second factor', () => {
  let mail: TestMailServer;
  let t: TestApp;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings });
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  it('a password-only session sets up no authenticator app until the mailed code is typed; then it does', async () => {
    // The forms of the page as it was before the address was verified: the routes themselves refuse.
    const p = await signedInPerson(t, { verified: false });
    const before = await p.page();
    const enrol = formFor(before, `${p.account}/otp/enrol`);
    const registration = passkeyForm(before, 'registration');
    expect((await t.admin.request('PATCH', `/realms/${p.realm}/users/${p.user.username}`, { claims: { email: p.email, email_verified: true } })).statusCode).toBe(200);

    const page = await p.page();
    expect(page).not.toContain('/account/otp/enrol');
    expect(page).not.toContain('data-passkey="registration"');
    expect(page).toContain('Before you set up a first second factor, enter the code we mail to your email address.');

    const refused = await p.b.post(`${p.account}/otp/enrol`, enrol);
    expect(noticeOf(refused)).toBe('We mailed you a code. Enter it below to set up a second factor.');
    const code = codeIn(await mail.nextMail(p.email));
    expect(noticeOf(await addPasskey(p, registration, 'Attacker key'))).toBe('We mailed you a code. Enter it below to set up a second factor.');
    expect(await p.hasApp()).toBe(false);
    expect(await t.store.oneTimeCodes.totp(p.realm, p.user.sub), 'not even a pending secret').toBeUndefined();
    expect(await p.passkeys()).toEqual([]);

    const codeForm = formFor(page, `${p.account}/enrolment-code`);
    const wrong = await p.b.post(`${p.account}/enrolment-code`, { ...codeForm, otp: String((Number(code) + 1) % 1_000_000).padStart(6, '0') });
    expect(noticeOf(wrong)).toBe('The code is incorrect.');
    expect((await p.page()).includes('/account/otp/enrol')).toBe(false);

    expect(noticeOf(await p.b.post(`${p.account}/enrolment-code`, { ...codeForm, otp: code }))).toBe('Code confirmed: you can now set up a second factor.');
    await enrolApp(p, formFor(await p.page(), `${p.account}/otp/enrol`));
    expect(await p.hasApp()).toBe(true);
  });

  it('the mailed code lets a first passkey be added; the code works only for its session', async () => {
    const p = await signedInPerson(t);
    const page = await p.page();
    const sent = await p.b.post(`${p.account}/enrolment-code`, { ...formFor(page, `${p.account}/enrolment-code`), resend: '1' });
    expect(noticeOf(sent)).toBe('We mailed you a new code. Earlier codes no longer work.');
    const code = codeIn(await mail.nextMail(p.email));

    // Another session of the same person (the attacker's, say) cannot use it.
    const other = new TestBrowser(t.app, t.baseUrl);
    const signIn = location(await other.get(p.account));
    await other.submit(signIn, await other.get(signIn), { username: p.user.username, password: p.user.password });
    const otherPage = (await other.get(p.account)).body;
    const elsewhere = await other.post(`${p.account}/enrolment-code`, { ...formFor(otherPage, `${p.account}/enrolment-code`), otp: code });
    expect(noticeOf(elsewhere)).not.toBe('Code confirmed: you can now set up a second factor.');

    expect(noticeOf(await p.b.post(`${p.account}/enrolment-code`, { ...formFor(page, `${p.account}/enrolment-code`), otp: code }))).toBe(
      'Code confirmed: you can now set up a second factor.',
    );
    expect(noticeOf(await addPasskey(p, passkeyForm(await p.page(), 'registration'), 'Laptop'))).toBe('The passkey "Laptop" was added.');
    expect(await p.passkeys()).toEqual(['Laptop']);
    expect((await other.get(p.account)).body, 'with a factor, the other session adds another as before').toContain('/account/otp/enrol');
  });

  it('a person who has a second factor adds another without a code', async () => {
    const p = await signedInPerson(t);
    expect((await t.admin.request('POST', `/realms/${p.realm}/users/${p.user.username}/totp`)).statusCode).toBe(201);
    const page = await p.page();
    expect(page).not.toContain('/account/enrolment-code');
    expect(noticeOf(await addPasskey(p, passkeyForm(page, 'registration'), 'Phone'))).toBe('The passkey "Phone" was added.');
    expect(await p.passkeys()).toEqual(['Phone']);
    expect(mail.received.filter((received) => received.to.includes(p.email))).toEqual([]);
  });

  it('a person without a verified address sets up an authenticator app as before', async () => {
    const p = await signedInPerson(t, { verified: false });
    await enrolApp(p, formFor(await p.page(), `${p.account}/otp/enrol`));
    expect(mail.received.filter((received) => received.to.includes(p.email))).toEqual([]);
  });

  it('says so in German and French', async () => {
    const p = await signedInPerson(t);
    p.b.headers = { 'accept-language': 'de' };
    expect(await p.page()).toContain('Bevor Sie einen ersten zweiten Faktor einrichten');
    p.b.headers = { 'accept-language': 'fr' };
    expect(await p.page()).toContain('Avant de configurer un premier second facteur');
  });
});

describe('the account page without mail: a first second factor asks no code', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a person with a verified address sets up an authenticator app at once', async () => {
    const p = await signedInPerson(t);
    const page = await p.page();
    expect(page).not.toContain('/account/enrolment-code');
    await enrolApp(p, formFor(page, `${p.account}/otp/enrol`));
    expect(await p.hasApp()).toBe(true);
  });
});
