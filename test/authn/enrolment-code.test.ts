import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, expectCode, freshRealm, issuerOf, publicClient, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { type ReceivedMail, type TestMailServer, startMailServer } from '../support/mail.js';
import { postForm, realmPath } from '../support/oauth.js';
import { errorOf, noticeOf } from '../support/self-service.js';
import { createUser, verifyIdToken } from '../support/users.js';

/** Brute-force delays are test/authn/brute-force.test.ts's subject: here they would only slow the suite. */
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

/**
 * A first second factor enrolled during a sign-in asks first for a code mailed to the person's
 * verified address (CONTRACT.md §8): whoever holds only the password cannot set up an
 * authenticator app or a passkey of their own. The code works for its sign-in only, while it
 * lives, for a few tries; its mails count under the tickets' limits. A real SMTP server gets the mails.
 */
const CHECK_YOUR_MAIL = '<h1>Check your mail</h1>';
const secretOnPage = (page: string): string | undefined => /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page)?.[1]?.replace(/ /g, '');
const codeIn = (mail: ReceivedMail): string => {
  const code = /^(\d{6})$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in ${mail.text}`);
  return code;
};
const otherThan = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('a code mailed before a first second factor is enrolled during a sign-in', () => {
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

  /** A realm of password then `second`, a client, and a person with a verified address (unless told) and no second factor. */
  async function setup(options: { verified?: boolean; journey?: unknown } = {}) {
    const realm = await freshRealm(t, { authentication: ['password', 'otp'] });
    if (options.journey) expect((await t.admin.request('PUT', `/realms/${realm}/journeys/default`, options.journey)).statusCode).toBe(200);
    const clientId = await publicClient(t, realm, 'openid profile');
    const email = `p-${randomBytes(4).toString('hex')}@example.com`;
    const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`, { claims: { email, email_verified: options.verified ?? true } });
    return { realm, clientId, user, email };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  /** A new browser through /authorize and the password, on the page after it. */
  async function afterPassword(s: Setup, extra: Record<string, string> = {}) {
    const b = new TestBrowser(t.app, t.baseUrl);
    const { verifier, challenge } = pkce();
    const start = await authorize(b, s.realm, codeRequest(s.clientId, { code_challenge: challenge, ...extra }));
    const signIn = location(start);
    const answer = await b.submit(signIn, await b.get(signIn), { username: s.user.username, password: s.user.password });
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
    const url = location(answer);
    const page = await b.get(url);
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return { b, url, page, verifier };
  }
  type At = Awaited<ReturnType<typeof afterPassword>>;

  const post = async (at: At, fields: Record<string, string>) => {
    const answer = await at.b.submit(at.url, at.page, fields);
    if (answer.statusCode === 200) at.page = answer;
    return answer;
  };

  it('asks for the mailed code before it shows the authenticator app; the app then enrols and signs in', async () => {
    const s = await setup();
    const at = await afterPassword(s);
    expect(at.page.body).toContain(CHECK_YOUR_MAIL);
    expect(at.page.body).toContain('<input id="otp" name="otp"');
    expect(at.page.body).toContain('name="resend"');
    expect(secretOnPage(at.page.body), 'no secret before the mailed code').toBeUndefined();
    expect((await t.store.oneTimeCodes.totp(s.realm, s.user.sub)), 'no pending secret either').toBeUndefined();
    const received = await mail.nextMail(s.email);
    expect(received.subject).toBe(`Your code to set up a second factor for ${s.realm}`);
    const code = codeIn(received);
    expect(received.html).toContain(code);

    // A wrong code: said so, and still no secret.
    const wrong = await post(at, { otp: otherThan(code) });
    expect(wrong.statusCode).toBe(200);
    expect(errorOf(wrong.body)).toBe('The code is incorrect.');
    expect(secretOnPage(wrong.body)).toBeUndefined();

    const right = await post(at, { otp: code });
    expect(right.statusCode, right.body.slice(0, 300)).toBe(303);
    const enrolment = await at.b.get(location(right));
    const secret = secretOnPage(enrolment.body);
    expect(secret, enrolment.body.slice(0, 500)).toBeDefined();
    at.page = enrolment;
    const passed = await post(at, { otp: new TOTP({ secret: Secret.fromBase32(secret!), algorithm: 'SHA1', digits: 6, period: 30 }).generate() });
    expect(passed.statusCode, passed.body.slice(0, 300)).toBe(303);
    const authorizationCode = expectCode(await consentFrom(at.b, passed), { iss: issuerOf(s.realm) });
    const tokens = await postForm(t.app, `${realmPath(s.realm)}/access_token`, {
      grant_type: 'authorization_code', code: authorizationCode, redirect_uri: REDIRECT_URI, client_id: s.clientId, code_verifier: at.verifier,
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const { payload } = await verifyIdToken(t.app, s.realm, (tokens.json() as { id_token: string }).id_token, { issuer: issuerOf(s.realm), audience: s.clientId });
    expect(payload.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('a code works only for the sign-in it was mailed for', async () => {
    const s = await setup();
    const first = await afterPassword(s);
    const firstCode = codeIn(await mail.nextMail(s.email));
    const second = await afterPassword(s);
    const secondCode = codeIn(await mail.nextMail(s.email));
    expect(errorOf((await post(second, { otp: firstCode })).body)).toBe(firstCode === secondCode ? undefined : 'The code is incorrect.');
    // Each sign-in's own code still passes it.
    expect((await post(first, { otp: firstCode })).statusCode).toBe(303);
  });

  it('five wrong codes spend it: then even the right one does not work, and a new mail brings a new code', async () => {
    const s = await setup();
    const at = await afterPassword(s);
    const code = codeIn(await mail.nextMail(s.email));
    for (let tries = 0; tries < 5; tries++) expect(errorOf((await post(at, { otp: otherThan(code) })).body)).toBe('The code is incorrect.');
    const spent = await post(at, { otp: code });
    expect(errorOf(spent.body)).toBe('The code no longer works: it expired or was mistyped too often. Have a new one sent.');
    // Shown again, the page mails nothing by itself.
    expect((await at.b.get(at.url)).body).toContain('The code no longer works');
    const resent = await post(at, { resend: '1' });
    expect(noticeOf(resent.body)).toBe('We mailed you a new code. Earlier codes no longer work.');
    const fresh = codeIn(await mail.nextMail(s.email));
    expect((await post(at, { otp: fresh })).statusCode).toBe(303);
  });

  it('takes no more than its five tries from wrong codes sent at once', async () => {
    const s = await setup();
    const at = await afterPassword(s);
    const code = codeIn(await mail.nextMail(s.email));
    const page = at.page;
    const answers = await Promise.all(Array.from({ length: 8 }, () => at.b.submit(at.url, page, { otp: otherThan(code) })));
    const errors = answers.map((answer) => errorOf(answer.body));
    expect(errors.filter((error) => error === 'The code is incorrect.'), JSON.stringify(errors)).toHaveLength(5);
    expect(errors.filter((error) => error?.startsWith('The code no longer works'))).toHaveLength(3);
    expect(errorOf((await post(at, { otp: code })).body)).toBe('The code no longer works: it expired or was mistyped too often. Have a new one sent.');
  });

  it('an expired code does not work, and a new mail replaces the code before it', async () => {
    const s = await setup();
    const at = await afterPassword(s);
    const first = codeIn(await mail.nextMail(s.email));
    await post(at, { resend: '1' });
    const second = codeIn(await mail.nextMail(s.email));
    if (first !== second) expect(errorOf((await post(at, { otp: first })).body)).toBe('The code is incorrect.');
    await t.store.db.query("UPDATE tickets SET expires_at = now() - interval '1 second' WHERE user_id = $1::uuid AND kind = 'enrolment_code'", [s.user.sub]);
    expect(errorOf((await post(at, { otp: second })).body)).toBe('The code no longer works: it expired or was mistyped too often. Have a new one sent.');
    expect(secretOnPage((await at.b.get(at.url)).body)).toBeUndefined();
  });

  it("counts its mails under the tickets' limits: the sixth in 15 minutes is not sent", async () => {
    const s = await setup();
    const at = await afterPassword(s);
    await mail.nextMail(s.email);
    for (let sent = 1; sent < 5; sent++) {
      expect(noticeOf((await post(at, { resend: '1' })).body)).toBe('We mailed you a new code. Earlier codes no longer work.');
      await mail.nextMail(s.email);
    }
    const before = mail.received.filter((each) => each.to.includes(s.email)).length;
    expect(errorOf((await post(at, { resend: '1' })).body)).toBe('Too many mails were sent to you. Wait a few minutes, then try again.');
    // Another sign-in of the same person is limited too.
    expect((await afterPassword(s)).page.body).toContain('Too many mails were sent to you.');
    expect(mail.received.filter((each) => each.to.includes(s.email)).length).toBe(before);
  });

  it('counts its codes per address as every per-address limit does, an IPv6 address by its /64: the 31st from one /64 is not sent', async () => {
    const realm = await freshRealm(t, { authentication: ['password', 'otp'] });
    const clientId = await publicClient(t, realm, 'openid profile');
    let host = 0;
    const nextAddress = () => `2001:db8:e0:1::${(++host).toString(16)}`;
    /** A person's sign-in from the /64, a new host for each request: the page after the password mails their first code. */
    async function signIn() {
      const email = `p-${randomBytes(4).toString('hex')}@example.com`;
      const user = await createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`, { claims: { email, email_verified: true } });
      const b = new TestBrowser(t.app, t.baseUrl);
      b.remoteAddress = nextAddress();
      const { verifier, challenge } = pkce();
      const signInUrl = location(await authorize(b, realm, codeRequest(clientId, { code_challenge: challenge })));
      b.remoteAddress = nextAddress();
      const answer = await b.submit(signInUrl, await b.get(signInUrl), { username: user.username, password: user.password });
      expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
      const url = location(answer);
      b.remoteAddress = nextAddress();
      return { b, url, page: await b.get(url), verifier };
    }
    // Six people, each at their own limit of 5 codes a window: 30 from the /64, each from another of its hosts.
    for (let person = 0; person < 6; person++) {
      const at = await signIn();
      expect(at.page.body).toContain(CHECK_YOUR_MAIL);
      expect(at.page.body).not.toContain('Too many mails were sent to you.');
      for (let resent = 1; resent < 5; resent++) {
        at.b.remoteAddress = nextAddress();
        expect(noticeOf((await post(at, { resend: '1' })).body)).toBe('We mailed you a new code. Earlier codes no longer work.');
      }
    }
    // Thirty codes from the /64: a seventh person's first is refused, though its host is new.
    expect((await signIn()).page.body).toContain('Too many mails were sent to you.');
  });

  it('speaks the language of the sign-in, on the page and in the mail', async () => {
    const s = await setup();
    const de = await afterPassword(s, { ui_locales: 'de' });
    expect(de.page.body).toContain('<h1>Prüfen Sie Ihre E-Mails</h1>');
    expect((await mail.nextMail(s.email)).subject).toBe(`Ihr Code zum Einrichten eines zweiten Faktors für ${s.realm}`);
    const fr = await afterPassword(s, { ui_locales: 'fr' });
    expect(fr.page.body).toContain('<h1>Consultez vos e-mails</h1>');
    const received = await mail.nextMail(s.email);
    expect(received.subject).toBe(`Votre code pour configurer un second facteur sur ${s.realm}`);
    expect(received.text).toContain('Le code fonctionne une seule fois');
  });

  it('an unverified address asks for no code: the app is set up as before', async () => {
    const s = await setup({ verified: false });
    const at = await afterPassword(s);
    expect(secretOnPage(at.page.body)).toBeDefined();
    expect(at.page.body).not.toContain(CHECK_YOUR_MAIL);
  });

  it('a passkey node that enrols asks for the mailed code before its registration ceremony', async () => {
    const s = await setup({
      journey: { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'key' } }, key: { type: 'passkey', enrol: true, next: { success: 'done', unavailable: 'deny' } } } },
    });
    const at = await afterPassword(s);
    expect(at.page.body).toContain(CHECK_YOUR_MAIL);
    expect(at.page.body).not.toContain('data-passkey-options=');
    const code = codeIn(await mail.nextMail(s.email));
    expect(errorOf((await post(at, { otp: otherThan(code) })).body)).toBe('The code is incorrect.');
    // A registration posted before the code is not looked at.
    expect((await post(at, { credential: '{}' })).body).toContain(CHECK_YOUR_MAIL);
    expect(await t.store.passkeys.listForUser(s.realm, s.user.sub)).toEqual([]);
    const right = await post(at, { otp: code });
    expect(right.statusCode).toBe(303);
    const ceremony = await at.b.get(location(right));
    expect(ceremony.body).not.toContain(CHECK_YOUR_MAIL);
    expect(ceremony.body).toContain('data-passkey-options=');
    expect(redirectPath(right)).toBe(`${realmPath(s.realm)}/login`);
  });
});
