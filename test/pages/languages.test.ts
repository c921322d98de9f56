import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, freshRealm, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, unescape } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { GOOD_PASSWORD, errorOf, hrefWith, noticeOf } from '../support/self-service.js';
import { createUser } from '../support/users.js';

/**
 * The languages of the pages and mails (CONTRACT.md §10): `ui_locales` of the authorization
 * request (kept with the sign-in for its later pages), then `Accept-Language` by q-value,
 * within the realm's `locales`, else the realm's first; `<html lang>` tells which; discovery
 * lists the realm's languages; a mail speaks the language of the page that caused it.
 */
const langOf = (page: LightMyRequestResponse): string | undefined => /<html lang="([^"]*)">/.exec(page.body)?.[1];
const headingOf = (page: LightMyRequestResponse): string | undefined => {
  const heading = /<h1>([^<]*)<\/h1>/.exec(page.body)?.[1];
  return heading === undefined ? undefined : unescape(heading);
};
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

let t: TestApp;
let mail: TestMailServer;

beforeAll(async () => {
  mail = await startMailServer();
  t = await startTestApp({ mail: mail.settings });
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

/** A realm of its own with a public client that asks for consent, and a person. */
async function setUp(settings: Record<string, unknown> = {}) {
  const realm = await freshRealm(t, settings);
  const { client_id: clientId } = await t.admin.createClient(realm, {
    client_type: 'public',
    client_name: 'Billing',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile',
  });
  const user = await createUser(t.admin, realm, unique('ada'));
  return { realm, clientId, user };
}

/** A browser that says `acceptLanguage`, at the sign-in page of a new authorization request. */
async function signInPage(realm: string, clientId: string, acceptLanguage: string | undefined, params: Record<string, string> = {}) {
  const browser = new TestBrowser(t.app, BASE_URL);
  if (acceptLanguage !== undefined) browser.headers['accept-language'] = acceptLanguage;
  const begun = await authorize(browser, realm, codeRequest(clientId, params));
  expect(begun.statusCode, begun.body.slice(0, 300)).toBe(303);
  const url = location(begun);
  return { browser, url, page: await browser.get(url) };
}

describe('choosing the language', () => {
  it('shows English without Accept-Language, the realm default being en, de, fr', async () => {
    const { realm, clientId } = await setUp();
    const { page } = await signInPage(realm, clientId, undefined);
    expect(langOf(page)).toBe('en');
    expect(headingOf(page)).toBe('Sign in');
    expect(page.body).toContain('<label for="password">Password</label>');
  });

  it.each([
    ['de', 'de', 'Anmelden', 'Passwort'],
    ['fr-CH', 'fr', 'Connexion', 'Mot de passe'],
    ['de-AT,de;q=0.9,en;q=0.8', 'de', 'Anmelden', 'Passwort'],
    // q-values, not the order, rank the languages.
    ['en;q=0.5, fr;q=0.9, de;q=0.7', 'fr', 'Connexion', 'Mot de passe'],
    ['de;q=0.2, fr;q=0.1, en;q=0.3', 'en', 'Sign in', 'Password'],
    // q=0 refuses a language; an unsupported one is passed over for the next.
    ['fr;q=0, de;q=0.4', 'de', 'Anmelden', 'Passwort'],
    ['es, it;q=0.9, fr;q=0.5', 'fr', 'Connexion', 'Mot de passe'],
    ['*', 'en', 'Sign in', 'Password'],
  ])('follows Accept-Language %j: %s', async (acceptLanguage, lang, heading, label) => {
    const { realm, clientId } = await setUp();
    const { page } = await signInPage(realm, clientId, acceptLanguage);
    expect(page.statusCode).toBe(200);
    expect(langOf(page)).toBe(lang);
    expect(headingOf(page)).toBe(heading);
    expect(page.body).toContain(`<label for="password">${label}</label>`);
  });

  it('falls back to the realm\u2019s first language when nothing asked for is offered, or the header is not one', async () => {
    const { realm, clientId } = await setUp({ locales: ['fr', 'de'] });
    for (const acceptLanguage of ['es, it;q=0.8', 'en', 'x y z;;', 'de;q=abc']) {
      const { page } = await signInPage(realm, clientId, acceptLanguage);
      expect(langOf(page), acceptLanguage).toBe('fr');
    }
  });

  it('shows only the realm\u2019s locales: a language it does not offer is not shown, whoever asks for it', async () => {
    const { realm, clientId } = await setUp({ locales: ['en', 'fr'] });
    expect(langOf((await signInPage(realm, clientId, 'de, fr;q=0.5')).page)).toBe('fr');
    expect(langOf((await signInPage(realm, clientId, 'de')).page)).toBe('en');
    expect(langOf((await signInPage(realm, clientId, 'fr', { ui_locales: 'de' })).page)).toBe('fr');
  });

  it('lets ui_locales beat Accept-Language, in its own order, passing over tags it does not offer', async () => {
    const { realm, clientId } = await setUp();
    expect(langOf((await signInPage(realm, clientId, 'fr', { ui_locales: 'de' })).page)).toBe('de');
    expect(langOf((await signInPage(realm, clientId, 'de', { ui_locales: 'es fr-CA de' })).page)).toBe('fr');
    // Nothing of ui_locales offered: Accept-Language decides; tags that are none are ignored, not an error.
    expect(langOf((await signInPage(realm, clientId, 'de', { ui_locales: 'es pt-BR' })).page)).toBe('de');
    expect(langOf((await signInPage(realm, clientId, 'de', { ui_locales: '<b> ;; ' })).page)).toBe('de');
  });

  it('lists the realm\u2019s locales in discovery as ui_locales_supported', async () => {
    const plain = await freshRealm(t);
    const limited = await freshRealm(t, { locales: ['de', 'en'] });
    const metadata = async (realm: string) => (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` })).json();
    expect((await metadata(plain)).ui_locales_supported).toEqual(['en', 'de', 'fr']);
    expect((await metadata(limited)).ui_locales_supported).toEqual(['de', 'en']);
  });
});

describe('the sign-in keeps its ui_locales', () => {
  it('for every later page: a wrong password, the consent page, whatever the browser says meanwhile', async () => {
    const { realm, clientId, user } = await setUp();
    const { browser, url, page } = await signInPage(realm, clientId, 'de', { ui_locales: 'fr' });
    expect(langOf(page)).toBe('fr');
    browser.headers['accept-language'] = 'de';

    const wrong = await browser.submit(url, page, { username: user.username, password: 'not-the-password' });
    expect(wrong.statusCode).toBe(200);
    expect(langOf(wrong)).toBe('fr');
    expect(errorOf(wrong.body)).toBe('Le nom d’utilisateur ou le mot de passe est incorrect.');

    const signedIn = await browser.submit(url, wrong, { username: user.username, password: user.password });
    expect(redirectPath(signedIn)).toMatch(/\/consent$/);
    const consent = await browser.get(location(signedIn));
    expect(langOf(consent)).toBe('fr');
    expect(headingOf(consent)).toBe('Autoriser l’accès\u202f?');
    expect(consent.body).toContain('<strong>Billing</strong> souhaite\u00a0:');
    // A built-in scope's description is translated while the realm keeps it as it came; it leads, the scope's id after it.
    expect(consent.body).toContain('<li><strong>Voir votre nom et votre profil de base</strong> <span class="scope-id">profile</span></li>');
    expect(consent.body).toContain('<button class="primary" type="submit" name="decision" value="allow">Autoriser</button>');

    const done = await browser.submit(location(signedIn), consent, { decision: 'allow' });
    expect(done.statusCode).toBe(303);
    expect(location(done).startsWith(REDIRECT_URI)).toBe(true);
  });

  it('for a pushed request (PAR) as for one in the query', async () => {
    const { realm, clientId } = await setUp();
    const pushed = await t.app.inject({
      method: 'POST',
      url: `${realmPath(realm)}/par`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(codeRequest(clientId, { ui_locales: 'de' }) as Record<string, string>).toString(),
    });
    expect(pushed.statusCode, pushed.body).toBe(201);
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.headers['accept-language'] = 'fr';
    const begun = await authorize(browser, realm, { client_id: clientId, request_uri: pushed.json().request_uri });
    const page = await browser.get(location(begun));
    expect(langOf(page)).toBe('de');
    expect(headingOf(page)).toBe('Anmelden');
  });

  it('for a custom scope: its description stays as the admin wrote it', async () => {
    const realm = await freshRealm(t);
    await t.admin.putScope(realm, 'invoices', 'Read your invoices');
    const { client_id: clientId } = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid invoices',
    });
    const user = await createUser(t.admin, realm, unique('cy'));
    const { browser, url, page } = await signInPage(realm, clientId, undefined, { ui_locales: 'de', scope: 'openid invoices' });
    const consent = await browser.get(location(await browser.submit(url, page, { username: user.username, password: user.password })));
    expect(langOf(consent)).toBe('de');
    expect(consent.body).toContain('<li><strong>Read your invoices</strong> <span class="scope-id">invoices</span></li>');
    expect(consent.body).toContain('<li><strong>Sie mit Ihrem Konto anmelden</strong> <span class="scope-id">openid</span></li>');
    expect(consent.body).toContain(`<strong>${clientId}</strong> möchte:`);
  });
});

describe('pages without a sign-in', () => {
  it('speak the browser\u2019s language: the error page of an untrusted request in its ui_locales, the device page, sign-out, a form that expired', async () => {
    const realm = await freshRealm(t);
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.headers['accept-language'] = 'de';

    const unknownClient = await browser.get(`${realmPath(realm)}/authorize?client_id=nobody&ui_locales=fr`);
    expect(unknownClient.statusCode).toBe(400);
    expect(langOf(unknownClient)).toBe('fr');
    expect(headingOf(unknownClient)).toBe('Requête non valide');

    const device = await browser.get(`${realmPath(realm)}/device/user`);
    expect(langOf(device)).toBe('de');
    expect(headingOf(device)).toBe('Gerät verbinden');
    const wrongCode = await browser.submit(`${realmPath(realm)}/device/user`, device, { user_code: 'BCDF-GHJK' });
    expect(errorOf(wrongCode.body)).toBe('Dieser Code ist ungültig oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät.');

    const expired = await browser.post(`${realmPath(realm)}/login`, { transaction: 'gone', csrf: 'x' });
    expect(expired.statusCode).toBe(400);
    expect(langOf(expired)).toBe('de');
    expect(headingOf(expired)).toBe('Anfrage abgelaufen');

    browser.headers['accept-language'] = 'fr';
    const signedOut = await browser.get(`${realmPath(realm)}/connect/endSession`);
    expect(langOf(signedOut)).toBe('fr');
    expect(headingOf(signedOut)).toBe('Déconnexion effectuée');
  });

  it('speak it on the account page, its sections and its notices', async () => {
    const { realm, clientId, user } = await setUp();
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.headers['accept-language'] = 'de-DE';
    const account = `${realmPath(realm)}/account`;
    const toSignIn = await browser.get(account);
    const login = location(toSignIn);
    const signedIn = await browser.submit(login, await browser.get(login), { username: user.username, password: user.password });
    expect(location(signedIn)).toMatch(/\/account$/);
    const page = await browser.get(account);
    expect(langOf(page)).toBe('de');
    expect(headingOf(page)).toBe('Ihr Konto');
    for (const heading of ['Passwort', 'Einmalcode', 'Passkeys', 'Wiederherstellungscodes', 'Anwendungen', 'Sitzungen']) {
      expect(page.body).toContain(`<h2>${heading}</h2>`);
    }
    expect(page.body).toContain('mit Passwort; endet am');
    void clientId;
  });
});

describe('mails', () => {
  it('go out in the language of the page that asked: a password reset in German', async () => {
    const realm = await freshRealm(t, { password_reset: true });
    const username = unique('bea');
    await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.headers['accept-language'] = 'de';
    const reset = `${realmPath(realm)}/reset`;
    const form = await browser.get(reset);
    expect(langOf(form)).toBe('de');
    const asked = await browser.submit(reset, form, { username });
    expect(langOf(asked)).toBe('de');
    expect(noticeOf(asked.body)).toMatch(/^Wenn dies der Benutzername oder die E-Mail-Adresse eines Kontos ist.*innerhalb von 15 Minuten\.$/);

    const received = await mail.nextMail(`${username}@example.com`);
    expect(received.subject).toBe(`Setzen Sie Ihr Passwort für ${realm} zurück`);
    expect(received.text).toContain(`Guten Tag ${username},`);
    expect(received.text).toContain('Der Link funktioniert einmal innerhalb von 15 Minuten.');
    expect(received.html).toContain('<html lang="de">');
  });

  it('go out in the language of the sign-in they come from: a registration under ui_locales=fr, its verification mail and the page that waits for it', async () => {
    const realm = await freshRealm(t, { self_registration: true, email_verification: true, allow_consent_bypass: true });
    const { client_id: clientId } = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
      skip_consent: true,
    });
    const { browser, page } = await signInPage(realm, clientId, 'de', { ui_locales: 'fr' });
    const registerUrl = hrefWith(page.body, '/register')!;
    expect(page.body).toContain('>Créer un compte</a>');
    const form = await browser.get(registerUrl);
    expect(langOf(form)).toBe('fr');
    expect(headingOf(form)).toBe('Créer un compte');

    const username = unique('cleo');
    const refused = await browser.submit(registerUrl, form, { username, email: 'not-an-address', password: 'short' });
    expect(errorOf(refused.body)).toBe('Saisissez une adresse e-mail valide. Le mot de passe doit comporter au moins 8 caractères.');
    const created = await browser.submit(registerUrl, refused, { username, email: `${username}@example.com`, password: GOOD_PASSWORD });
    expect(created.statusCode).toBe(303);

    const received = await mail.nextMail(`${username}@example.com`);
    expect(received.subject).toBe(`Confirmez votre adresse e-mail pour ${realm}`);
    // The address is not confirmed: no username, which whoever typed it chose.
    expect(received.text).toContain('Bonjour,');
    expect(received.text).toContain(`Veuillez confirmer qu’il s’agit bien de votre adresse e-mail pour votre nouveau compte sur ${realm}.`);
    expect(received.text).not.toContain(username);
    expect(received.text).toContain('Le lien fonctionne une seule fois, pendant 15 minutes.');

    const waiting = await browser.get(location(created));
    expect(langOf(waiting)).toBe('fr');
    expect(headingOf(waiting)).toBe('Confirmez votre adresse e-mail');
    const resent = await browser.submit(location(created), waiting, { resend: '1' });
    expect(noticeOf(resent.body)).toBe('Nous vous avons envoyé un nouvel e-mail. Ouvrez son lien, puis revenez ici pour continuer.');
    expect((await mail.nextMail(`${username}@example.com`)).subject).toBe(`Confirmez votre adresse e-mail pour ${realm}`);
  });
});
