import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { query } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { GOOD_PASSWORD } from '../support/self-service.js';
import { type TestUser, createUser } from '../support/users.js';
import { type PageForm, awayFromStepEnd, formsOf, personIn, routeTable, securityRealm, signedInBrowser, totpOf } from './support.js';

vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => {},
}));

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';
const REFUSED = 'The form could not be accepted.';

/** A form of a page in the victim's browser, and the same form as another browser of the attacker's got it. */
interface Arranged {
  victim: TestBrowser;
  /** Where the form posts. */
  url: string;
  /** The victim's form: hidden inputs and what the person fills in. */
  form: Record<string, string>;
  /** The CSRF token the same form carries in another browser. */
  othersCsrf: string;
  /** Whether what the form changes has changed. */
  changed(response: LightMyRequestResponse): Promise<boolean>;
}

interface FormCase {
  name: string;
  /** The route the form posts to, below the realm's issuer. */
  route: string;
  arrange(): Promise<Arranged>;
}

/** The CSRF token with its last characters changed: as long as the right one, and wrong. */
function tampered(csrf: string): string {
  const last = csrf.slice(-4);
  return csrf.slice(0, -4) + (last === 'AAAA' ? 'BBBB' : 'AAAA');
}

/**
 * CSRF on every form the server renders (RFC 9700 §4.7 asks it of the client's redirect
 * endpoint; an authorization server's own forms need it as much). Each form is posted from
 * the victim's browser without its token, with a wrong one, and with the token the same form
 * carries in another browser (as an attacker who opens the page themselves gets it): each is
 * refused with the 400 page, and nothing changes. Then the form with its own token does
 * change what it changes, which shows that the probe would have seen a change.
 */
describe('CSRF protection of every form', () => {
  let t: TestApp;
  let realm: string;
  let otpRealm: string;
  let passkeyRealm: string;
  let passkeyAlternativeRealm: string;
  /** A realm whose people register and reset their passwords (CONTRACT.md §9). */
  let selfServiceRealm: string;
  let mail: TestMailServer;
  const clients: Record<string, { web: string; tv: string; desk: { id: string; secret: string } }> = {};

  const browser = () => new TestBrowser(t.app, t.baseUrl);
  const issuer = (name: string) => `${t.baseUrl}${realmPath(name)}`;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings });
    realm = await securityRealm(t);
    selfServiceRealm = await securityRealm(t, { self_registration: true, password_reset: true });
    otpRealm = await securityRealm(t, { authentication: ['password', 'otp'] });
    passkeyRealm = await securityRealm(t, { authentication: ['passkey'] });
    passkeyAlternativeRealm = await securityRealm(t, { authentication: ['password', 'passkey'] });
    for (const name of [realm, otpRealm, passkeyRealm, passkeyAlternativeRealm]) {
      const web = await t.admin.createClient(name, {
        client_type: 'public',
        client_name: 'Web app',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        scope: 'openid profile',
      });
      const tv = await t.admin.createClient(name, { client_type: 'public', grant_types: [DEVICE_GRANT], scope: 'openid' });
      const desk = await t.admin.createClient(name, { grant_types: [CIBA_GRANT], scope: 'openid' });
      clients[name] = { web: web.client_id, tv: tv.client_id, desk: { id: desk.client_id, secret: desk.client_secret! } };
    }
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const passwordHashOf = async (name: string, username: string) => (await t.store.users.get(name, username))?.passwordHash;

  /** /authorize in a browser, to the sign-in page: its URL and body. */
  async function signInPage(name: string, b: TestBrowser) {
    const request = { client_id: clients[name]!.web, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' };
    const start = await b.get(`${realmPath(name)}/authorize?${query(request)}`);
    const url = location(start);
    const page = await b.get(url);
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return { url, page };
  }

  /** The form of a page that posts to `path` below the issuer, or the page's only form. */
  function formOn(page: LightMyRequestResponse, name: string, path?: string): PageForm {
    const forms = formsOf(page.body);
    const form = path === undefined ? forms[0] : forms.find((candidate) => candidate.action === `${issuer(name)}${path}`);
    if (!form) throw new Error(`no form for ${path} on ${page.body.slice(0, 500)}`);
    return form;
  }

  const sessionOf = (b: TestBrowser, name: string) => b.cookies.has(`rg_session_${name}`);

  /** Two browsers of one person, each signed in, on the account page. */
  async function twoAccountPages(user: TestUser, name = realm) {
    const victim = await signedInBrowser(t, name, user);
    const other = await signedInBrowser(t, name, user);
    const accountUrl = `${realmPath(name)}/account`;
    return { victim, other, victimPage: await victim.get(accountUrl), otherPage: await other.get(accountUrl) };
  }

  /** An account-page form: the victim's and the other browser's copies of the form posting to `path`. */
  async function accountForm(user: TestUser, path: string, changed: Arranged['changed'], fields: Record<string, string> = {}): Promise<Arranged> {
    const { victim, victimPage, otherPage } = await twoAccountPages(user);
    const form = formOn(victimPage, realm, path);
    return {
      victim,
      url: form.action!,
      form: { ...form.hidden, ...fields },
      othersCsrf: formOn(otherPage, realm, path).hidden.csrf!,
      changed,
    };
  }

  const cases: FormCase[] = [
    {
      name: 'sign-in: the password step',
      route: '/login',
      async arrange() {
        const user = await personIn(t, realm);
        const victim = browser();
        const { url, page } = await signInPage(realm, victim);
        const other = await signInPage(realm, browser());
        return {
          victim,
          url,
          form: { ...formOn(page, realm).hidden, username: user.username, password: user.password },
          othersCsrf: formOn(other.page, realm).hidden.csrf!,
          changed: async () => sessionOf(victim, realm),
        };
      },
    },
    {
      name: 'sign-in: the one-time code step',
      route: '/login',
      async arrange() {
        const user = await personIn(t, otpRealm);
        const enrolled = await t.admin.request('POST', `/realms/${otpRealm}/users/${user.username}/totp`);
        const secret = (enrolled.json() as { secret: string }).secret;
        const toCodePage = async (b: TestBrowser) => {
          const { url, page } = await signInPage(otpRealm, b);
          const answer = await b.submit(url, page, { username: user.username, password: user.password });
          expect(location(answer)).toBe(url);
          const codePage = await b.get(url);
          expect(codePage.body).toContain('name="otp"');
          return { url, codePage };
        };
        const victim = browser();
        const { url, codePage } = await toCodePage(victim);
        const other = await toCodePage(browser());
        await awayFromStepEnd();
        return {
          victim,
          url,
          form: { ...formOn(codePage, otpRealm).hidden, otp: totpOf(secret).generate() },
          othersCsrf: formOn(other.codePage, otpRealm).hidden.csrf!,
          changed: async () => sessionOf(victim, otpRealm),
        };
      },
    },
    {
      name: 'sign-in: the passkey step (passwordless, the first step)',
      route: '/login',
      async arrange() {
        const victim = browser();
        const { url, page } = await signInPage(passkeyRealm, victim);
        const other = await signInPage(passkeyRealm, browser());
        const form = formOn(page, passkeyRealm);
        expect(form.inner).toContain('data-passkey="authentication"');
        return {
          victim,
          url,
          form: { ...form.hidden, credential: '{"id":"x"}' },
          othersCsrf: formOn(other.page, passkeyRealm).hidden.csrf!,
          // No software authenticator here (test/authn/passkeys.test.ts has one): the form with
          // its token reaches the step, which answers on the page; without it, the 400 page.
          changed: async (response) => response.statusCode === 200 && response.body.includes('class="error"'),
        };
      },
    },
    {
      name: 'sign-in: a passkey offered beside the password',
      route: '/login',
      async arrange() {
        const victim = browser();
        const { url, page } = await signInPage(passkeyAlternativeRealm, victim);
        const other = await signInPage(passkeyAlternativeRealm, browser());
        const alternative = (p: LightMyRequestResponse) => formsOf(p.body).find((form) => form.hidden.step === 'passkey')!;
        return {
          victim,
          url,
          form: { ...alternative(page).hidden, credential: '{"id":"x"}' },
          othersCsrf: alternative(other.page).hidden.csrf!,
          changed: async (response) => response.statusCode === 200 && response.body.includes('class="error"'),
        };
      },
    },
    {
      name: 'consent of an authorization request',
      route: '/consent',
      async arrange() {
        const user = await personIn(t, realm);
        const toConsent = async (b: TestBrowser) => {
          const { url, page } = await signInPage(realm, b);
          const consentUrl = location(await b.submit(url, page, { username: user.username, password: user.password }));
          return { consentUrl, consent: await b.get(consentUrl) };
        };
        const victim = browser();
        const { consentUrl, consent } = await toConsent(victim);
        const other = await toConsent(browser());
        return {
          victim,
          url: consentUrl,
          form: { ...formOn(consent, realm).hidden, decision: 'allow' },
          othersCsrf: formOn(other.consent, realm).hidden.csrf!,
          changed: async () => (await t.store.consents.granted(realm, user.sub, clients[realm]!.web)) !== undefined,
        };
      },
    },
    {
      name: 'the device page: the user code',
      route: '/device/user',
      async arrange() {
        const user = await personIn(t, realm);
        const device = await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: clients[realm]!.tv });
        const { user_code: userCode } = device.json() as { user_code: string };
        const url = `${realmPath(realm)}/device/user`;
        const victim = await signedInBrowser(t, realm, user);
        const page = await victim.get(url);
        const otherPage = await browser().get(url);
        return {
          victim,
          url,
          form: { ...formOn(page, realm).hidden, user_code: userCode },
          othersCsrf: formOn(otherPage, realm).hidden.csrf!,
          changed: async (response) => response.statusCode === 303 && new URL(location(response)).pathname.endsWith('/consent'),
        };
      },
    },
    {
      name: "consent of a device's request",
      route: '/consent',
      async arrange() {
        const user = await personIn(t, realm);
        const device = await postForm(t.app, `${realmPath(realm)}/device/code`, { client_id: clients[realm]!.tv });
        const { user_code: userCode } = device.json() as { user_code: string };
        const toConsent = async () => {
          const b = await signedInBrowser(t, realm, user);
          const url = `${realmPath(realm)}/device/user`;
          const consentUrl = location(await b.submit(url, await b.get(url), { user_code: userCode }));
          return { b, consentUrl, consent: await b.get(consentUrl) };
        };
        const { b: victim, consentUrl, consent } = await toConsent();
        const other = await toConsent();
        expect(consent.body).toContain(`${userCode}</strong>`);
        return {
          victim,
          url: consentUrl,
          form: { ...formOn(consent, realm).hidden, decision: 'allow' },
          othersCsrf: formOn(other.consent, realm).hidden.csrf!,
          changed: async () => (await t.store.pendingAuthorizations.findDeviceByUserCode(realm, userCode.replace('-', ''))) === undefined,
        };
      },
    },
    {
      name: 'the CIBA approval page',
      route: '/bc-approve',
      async arrange() {
        const user = await personIn(t, realm);
        const { desk } = clients[realm]!;
        const requested = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: user.username }, {
          authorization: basic(desk.id, desk.secret),
        });
        expect(requested.statusCode, requested.body).toBe(200);
        const url = `${realmPath(realm)}/bc-approve`;
        const victim = await signedInBrowser(t, realm, user);
        const other = await signedInBrowser(t, realm, user);
        const form = formOn(await victim.get(url), realm);
        return {
          victim,
          url,
          form: { ...form.hidden, decision: 'allow' },
          othersCsrf: formOn(await other.get(url), realm).hidden.csrf!,
          changed: async () => (await t.store.pendingAuthorizations.findPending(realm, form.hidden.request!)) === undefined,
        };
      },
    },
    {
      name: 'account: the code mailed before a first second factor',
      route: '/account/enrolment-code',
      async arrange() {
        const username = `u-${randomBytes(4).toString('hex')}`;
        const user = await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
        const mailed = async () => (await t.store.db.query("SELECT 1 FROM tickets WHERE kind = 'enrolment_code' AND user_id = $1::uuid", [user.sub])).rows.length > 0;
        return accountForm(user, '/account/enrolment-code', mailed, { resend: '1' });
      },
    },
    {
      name: 'account: set up an authenticator app',
      route: '/account/otp/enrol',
      async arrange() {
        const user = await personIn(t, realm);
        return accountForm(user, '/account/otp/enrol', async () => (await t.store.oneTimeCodes.totp(realm, user.sub)) !== undefined);
      },
    },
    {
      name: 'account: confirm the authenticator app with its first code',
      route: '/account/otp/confirm',
      async arrange() {
        const user = await personIn(t, realm);
        const { victim, other, victimPage, otherPage } = await twoAccountPages(user);
        const enrol = (b: TestBrowser, page: LightMyRequestResponse) => {
          const form = formOn(page, realm, '/account/otp/enrol');
          return b.post(form.action!, form.hidden);
        };
        // The other browser enrols first: the victim's enrolment replaces its secret.
        const otherEnrolment = await enrol(other, otherPage);
        const enrolment = await enrol(victim, victimPage);
        const secret = /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(enrolment.body)![1]!.replace(/ /g, '');
        const form = formOn(enrolment, realm, '/account/otp/confirm');
        await awayFromStepEnd();
        return {
          victim,
          url: form.action!,
          form: { ...form.hidden, otp: totpOf(secret).generate() },
          othersCsrf: formOn(otherEnrolment, realm, '/account/otp/confirm').hidden.csrf!,
          changed: async () => (await t.store.oneTimeCodes.totp(realm, user.sub))?.confirmedAt !== undefined,
        };
      },
    },
    {
      name: 'account: remove the authenticator app',
      route: '/account/otp/remove',
      async arrange() {
        const user = await personIn(t, realm);
        await t.admin.request('POST', `/realms/${realm}/users/${user.username}/totp`);
        return accountForm(user, '/account/otp/remove', async () => (await t.store.oneTimeCodes.totp(realm, user.sub)) === undefined);
      },
    },
    {
      name: 'account: add a passkey',
      route: '/account/passkeys/register',
      async arrange() {
        const user = await personIn(t, realm);
        // The form with its token reaches the WebAuthn check, which refuses this credential with a notice.
        return accountForm(user, '/account/passkeys/register', async (response) => response.statusCode === 303, {
          passkey_name: 'Laptop',
          credential: '{"id":"x"}',
        });
      },
    },
    {
      name: 'account: delete a passkey',
      route: '/account/passkeys/delete',
      async arrange() {
        const user = await personIn(t, realm);
        const created = await t.store.passkeys.create(
          { credentialId: randomBytes(32), realm, userId: user.sub, publicKey: randomBytes(77), counter: 0, transports: [], backedUp: false, name: 'Phone' },
          10,
        );
        expect(created).toBe(true);
        return accountForm(user, '/account/passkeys/delete', async () => (await t.store.passkeys.listForUser(realm, user.sub)).length === 0);
      },
    },
    {
      name: 'account: generate recovery codes',
      route: '/account/recovery-codes',
      async arrange() {
        const user = await personIn(t, realm);
        return accountForm(user, '/account/recovery-codes', async () => (await t.store.oneTimeCodes.recoveryCodesLeft(realm, user.sub)) > 0);
      },
    },
    {
      name: 'account: revoke an application',
      route: '/account/applications/revoke',
      async arrange() {
        const user = await personIn(t, realm);
        await t.store.consents.grant(realm, user.sub, clients[realm]!.web, ['openid']);
        return accountForm(user, '/account/applications/revoke', async () => (await t.store.consents.granted(realm, user.sub, clients[realm]!.web)) === undefined);
      },
    },
    {
      name: 'account: sign out a session',
      route: '/account/sessions/end',
      async arrange() {
        const user = await personIn(t, realm);
        const { victim, other, victimPage, otherPage } = await twoAccountPages(user);
        // The victim's page lists both sessions; its form for the other browser's session, and that browser's form for it.
        const otherSession = (page: LightMyRequestResponse, mark: boolean) => {
          const item = page.body.split('<li class="session">').slice(1).find((each) => each.includes('(this browser)') === mark)!;
          return formsOf(item)[0]!;
        };
        const form = otherSession(victimPage, false);
        const othersForm = otherSession(otherPage, true);
        expect(othersForm.hidden.sid).toBe(form.hidden.sid);
        return {
          victim,
          url: form.action!,
          form: form.hidden,
          othersCsrf: othersForm.hidden.csrf!,
          changed: async () => (await other.get(`${realmPath(realm)}/account`)).statusCode !== 200,
        };
      },
    },
    {
      name: 'sign-out confirmation (RP-initiated logout)',
      route: '/connect/endSession',
      async arrange() {
        const user = await personIn(t, realm);
        const url = `${realmPath(realm)}/connect/endSession`;
        const victim = await signedInBrowser(t, realm, user);
        const other = await signedInBrowser(t, realm, user);
        const confirmation = await victim.get(url);
        expect(confirmation.body).toContain('Do you want to sign out?');
        return {
          victim,
          url,
          form: { ...formOn(confirmation, realm).hidden, decision: 'allow' },
          othersCsrf: formOn(await other.get(url), realm).hidden.csrf!,
          changed: async () => (await victim.get(`${realmPath(realm)}/account`)).statusCode !== 200,
        };
      },
    },
    {
      name: 'account: edit the name',
      route: '/account/profile/names',
      async arrange() {
        const user = await personIn(t, realm);
        const givenName = async () => (await t.store.users.getById(realm, user.sub))?.claims.given_name;
        return accountForm(user, '/account/profile/names', async () => (await givenName()) === 'Mallory', { given_name: 'Mallory', family_name: 'Forged' });
      },
    },
    {
      name: 'account: change the email address',
      route: '/account/profile/email',
      async arrange() {
        const user = await personIn(t, realm);
        const address = `forged-${user.username}@attacker.example`;
        return accountForm(user, '/account/profile/email', async () => (await t.store.users.getById(realm, user.sub))?.claims.email === address, { email: address });
      },
    },
    {
      name: 'account: sign out everywhere',
      route: '/account/sessions/end-all',
      async arrange() {
        const user = await personIn(t, realm);
        return accountForm(user, '/account/sessions/end-all', async () => (await t.store.sessions.listForUser(realm, user.sub)).length === 0);
      },
    },
    {
      name: 'account: change the password',
      route: '/account/password',
      async arrange() {
        const user = await personIn(t, realm);
        const before = await passwordHashOf(realm, user.username);
        return accountForm(user, '/account/password', async () => (await passwordHashOf(realm, user.username)) !== before, {
          current_password: user.password,
          new_password: GOOD_PASSWORD,
        });
      },
    },
    {
      name: 'account: unlink an account at another provider',
      route: '/account/identities/unlink',
      async arrange() {
        // A realm of its own: its provider adds a button to the sign-in page of the other cases' realm.
        const name = await securityRealm(t);
        const added = await t.admin.request('POST', `/realms/${name}/identity-providers`, {
          alias: 'corp',
          kind: 'oidc',
          issuer: 'https://idp.example',
          client_id: 'realmgate',
          client_secret: 'upstream-client-secret-0123456789',
        });
        expect(added.statusCode, added.body).toBe(201);
        const user = await personIn(t, name);
        expect(await t.store.userIdentities.link(name, { provider: 'corp', subject: 'corp-1', userId: user.sub })).toBe(true);
        const { victim, victimPage, otherPage } = await twoAccountPages(user, name);
        const form = formOn(victimPage, name, '/account/identities/unlink');
        return {
          victim,
          url: form.action!,
          form: form.hidden,
          othersCsrf: formOn(otherPage, name, '/account/identities/unlink').hidden.csrf!,
          changed: async () => (await t.store.userIdentities.ofPerson(name, user.sub)).length === 0,
        };
      },
    },
    {
      name: 'account: link an account at another provider',
      route: '/account/identities/link',
      async arrange() {
        const name = await securityRealm(t);
        const added = await t.admin.request('POST', `/realms/${name}/identity-providers`, {
          alias: 'corp',
          kind: 'oidc',
          issuer: 'https://idp.example',
          client_id: 'realmgate',
          client_secret: 'upstream-client-secret-0123456789',
        });
        expect(added.statusCode, added.body).toBe(201);
        const user = await personIn(t, name);
        const { victim, victimPage, otherPage } = await twoAccountPages(user, name);
        const form = formOn(victimPage, name, '/account/identities/link');
        return {
          victim,
          url: form.action!,
          form: { ...form.hidden, provider: 'corp' },
          othersCsrf: formOn(otherPage, name, '/account/identities/link').hidden.csrf!,
          // An accepted form goes to the provider (here unreachable: the account page says so).
          changed: async (response) => response.statusCode === 303 && new URL(location(response)).searchParams.get('notice') === 'corp cannot be reached right now. Try again later, or sign in another way.',
        };
      },
    },
    {
      name: 'registration',
      route: '/register',
      async arrange() {
        const url = `${realmPath(selfServiceRealm)}/register`;
        const victim = browser();
        const page = await victim.get(url);
        const username = `new-${randomBytes(4).toString('hex')}`;
        return {
          victim,
          url,
          form: { ...formOn(page, selfServiceRealm).hidden, username, email: `${username}@example.com`, password: GOOD_PASSWORD },
          othersCsrf: formOn(await browser().get(url), selfServiceRealm).hidden.csrf!,
          changed: async () => (await t.store.users.get(selfServiceRealm, username)) !== undefined,
        };
      },
    },
    {
      name: 'password reset: asking for a link',
      route: '/reset',
      async arrange() {
        const username = `rita-${randomBytes(4).toString('hex')}`;
        const user = await createUser(t.admin, selfServiceRealm, username, { claims: { email: `${username}@example.com` } });
        const url = `${realmPath(selfServiceRealm)}/reset`;
        const victim = browser();
        const page = await victim.get(url);
        // The ticket is issued once the answer has gone out.
        const ticketIssued = async () => {
          for (let wait = 0; wait < 40; wait++) {
            const issued = await t.store.db.query('SELECT 1 FROM tickets WHERE user_id = $1::uuid', [user.sub]);
            if (issued.rows.length > 0) return true;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          return false;
        };
        return {
          victim,
          url,
          form: { ...formOn(page, selfServiceRealm).hidden, username },
          othersCsrf: formOn(await browser().get(url), selfServiceRealm).hidden.csrf!,
          changed: ticketIssued,
        };
      },
    },
    {
      name: "password reset: the mail link's new password",
      route: '/reset',
      async arrange() {
        const user = await personIn(t, selfServiceRealm);
        const issued = await t.store.tickets.issue('password_reset', selfServiceRealm, user.sub, '192.0.2.1', 900);
        if (issued === 'limited') throw new Error('limited');
        const url = `${realmPath(selfServiceRealm)}/reset?ticket=${issued.ticket}`;
        const before = await passwordHashOf(selfServiceRealm, user.username);
        const victim = browser();
        const page = await victim.get(url);
        return {
          victim,
          url,
          form: { ...formOn(page, selfServiceRealm).hidden, password: GOOD_PASSWORD },
          othersCsrf: formOn(await browser().get(url), selfServiceRealm).hidden.csrf!,
          changed: async () => (await passwordHashOf(selfServiceRealm, user.username)) !== before,
        };
      },
    },
  ];

  it('has a case for every form route of the pages, read from the route table', () => {
    const oauthEndpoints = /\/(authorize|access_token|introspect|token\/revoke|par|bc-authorize|device\/code|connect\/register(\/.*)?|userinfo)$/;
    const formRoutes = routeTable(t.app)
      .filter(({ path, methods }) => path.startsWith('/oauth2/:realm/') && methods.includes('POST') && !oauthEndpoints.test(path))
      .map(({ path }) => path.slice('/oauth2/:realm'.length));
    expect(new Set(cases.map((each) => each.route))).toEqual(new Set(formRoutes));
  });

  for (const formCase of cases) {
    it(`${formCase.name} (POST ${formCase.route}): refused without its token, with a wrong one, with another browser's; accepted with its own`, async () => {
      const arranged = await formCase.arrange();
      const { victim, url, form } = arranged;
      expect(form.csrf, 'the form carries a CSRF token').toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(arranged.othersCsrf, 'another browser gets another token').not.toBe(form.csrf);
      const { csrf: _csrf, ...withoutToken } = form;
      for (const [variant, posted] of [
        ['without a token', withoutToken],
        ['with an empty token', { ...form, csrf: '' }],
        ['with a wrong token', { ...form, csrf: tampered(form.csrf!) }],
        ["with another browser's token", { ...form, csrf: arranged.othersCsrf }],
      ] as const) {
        const response = await victim.post(url, posted);
        expect(response.statusCode, `${variant}: ${response.body.slice(0, 300)}`).toBe(400);
        expect(response.body, variant).toContain(REFUSED);
        expect(response.headers.location, variant).toBeUndefined();
        expect(await arranged.changed(response), `${variant} changed something`).toBe(false);
      }
      const accepted = await victim.post(url, form);
      expect(accepted.statusCode, accepted.body.slice(0, 300)).not.toBe(400);
      expect(await arranged.changed(accepted), 'the form with its own token changes what it changes').toBe(true);
    });
  }
});
