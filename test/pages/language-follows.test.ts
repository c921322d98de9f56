import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, unescape } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

/**
 * The language follows the person (CONTRACT.md §16): every page carries a language picker
 * (links with `?ui_locales=`); what it chooses is kept by the sign-in and by the session, and
 * the pages after it (consent, account, device) and the mails (whose links carry the language)
 * speak it, whatever the browser's `Accept-Language` says.
 */
const langOf = (page: LightMyRequestResponse): string | undefined => /<html lang="([^"]*)">/.exec(page.body)?.[1];
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const pickerOf = (page: LightMyRequestResponse): string | undefined => /<nav class="languages"[^>]*>.*?<\/nav>/s.exec(page.body)?.[0];
/** The picker's link to `locale`, as the browser resolves it against the page's URL. */
function pickerLink(page: LightMyRequestResponse, pageUrl: string, locale: string): string {
  const href = new RegExp(`<a href="([^"]*)" hreflang="${locale}"`).exec(pickerOf(page) ?? '')?.[1];
  if (href === undefined) throw new Error(`no ${locale} link in the picker: ${pickerOf(page)}`);
  return new URL(unescape(href), new URL(pageUrl, BASE_URL)).toString();
}

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

async function setUp(settings: Record<string, unknown> = {}) {
  const realm = await freshRealm(t, settings);
  const { client_id: clientId } = await t.admin.createClient(realm, {
    client_type: 'public',
    client_name: 'Billing',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile',
  });
  const user = await createUser(t.admin, realm, unique('ada'), { claims: { email: `${unique('ada')}@example.com`, email_verified: true } });
  return { realm, clientId, user };
}

/** A browser that prefers English, at the sign-in page of a request that may ask for a language. */
async function signInPage(realm: string, clientId: string, params: Record<string, string> = {}) {
  const browser = new TestBrowser(t.app, BASE_URL);
  browser.headers['accept-language'] = 'en';
  const url = location(await authorize(browser, realm, codeRequest(clientId, params)));
  return { browser, url, page: await browser.get(url) };
}

describe('the language picker', () => {
  it('links every offered language by its own name, marks the page\u2019s, keeps the page\u2019s address, and is on error pages too', async () => {
    const { realm, clientId } = await setUp();
    const { url, page } = await signInPage(realm, clientId);
    const picker = pickerOf(page)!;
    expect(picker).toContain('aria-label="Language"');
    expect(picker).toMatch(/hreflang="en" lang="en" aria-current="true">English</);
    expect(picker).toMatch(/hreflang="de" lang="de">Deutsch</);
    expect(picker).toMatch(/hreflang="fr" lang="fr">Français</);
    const german = new URL(pickerLink(page, url, 'de'));
    expect(german.pathname).toBe(new URL(url, BASE_URL).pathname);
    expect(german.searchParams.get('transaction')).toBe(new URL(url, BASE_URL).searchParams.get('transaction'));
    expect(german.searchParams.get('ui_locales')).toBe('de');

    const browser = new TestBrowser(t.app, BASE_URL);
    const expired = await browser.post(`${realmPath(realm)}/login`, { transaction: 'gone', csrf: 'x' });
    expect(expired.statusCode).toBe(400);
    expect(new URL(pickerLink(expired, `${realmPath(realm)}/login`, 'fr')).search).toBe('?transaction=gone&ui_locales=fr');
  });

  it('is left out when the realm offers one language', async () => {
    const { realm, clientId } = await setUp({ locales: ['de'] });
    const { page } = await signInPage(realm, clientId);
    expect(langOf(page)).toBe('de');
    expect(pickerOf(page)).toBeUndefined();
  });

  it('changes the sign-in\u2019s language for its later pages, and the session keeps it for the account and device pages', async () => {
    const { realm, clientId, user } = await setUp();
    const { browser, url, page } = await signInPage(realm, clientId, { ui_locales: 'de' });
    expect(langOf(page)).toBe('de');
    const frenchUrl = pickerLink(page, url, 'fr');
    const french = await browser.get(frenchUrl);
    expect(langOf(french)).toBe('fr');
    // The form posts without `ui_locales`: the sign-in kept the choice, over its request's `ui_locales=de`.
    const signedIn = await browser.submit(url, french, { username: user.username, password: user.password });
    const consent = await browser.get(location(signedIn));
    expect(langOf(consent)).toBe('fr');

    const account = await browser.get(`${realmPath(realm)}/account`);
    expect(langOf(account)).toBe('fr');
    expect(langOf(await browser.get(`${realmPath(realm)}/device/user`))).toBe('fr');

    // The account page's picker changes the session's language, for the pages after it.
    const toGerman = await browser.get(pickerLink(account, `${realmPath(realm)}/account`, 'de'));
    expect(langOf(toGerman)).toBe('de');
    expect(langOf(await browser.get(`${realmPath(realm)}/account`))).toBe('de');
    expect(langOf(await browser.get(`${realmPath(realm)}/device/user`))).toBe('de');
  });

  it('lets a language the realm does not offer, or a malformed one, change nothing', async () => {
    const { realm, clientId, user } = await setUp({ locales: ['en', 'de'] });
    const { browser, url, page } = await signInPage(realm, clientId, { ui_locales: 'de' });
    await browser.submit(url, page, { username: user.username, password: user.password });
    const account = `${realmPath(realm)}/account`;
    for (const asked of ['fr', 'x<y', 'en-', '*']) {
      const shown = await browser.get(`${account}?ui_locales=${encodeURIComponent(asked)}`);
      expect(shown.statusCode).toBe(200);
      expect(langOf(shown)).toBe('de');
    }
    expect(langOf(await browser.get(account))).toBe('de');
  });
});

describe('mails and their links', () => {
  it('a reset mail links its page in the mail\u2019s language, which opens in it whatever the browser prefers', async () => {
    const realm = await freshRealm(t, { password_reset: true });
    const username = unique('bea');
    await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const reset = `${realmPath(realm)}/reset?ui_locales=de`;
    const form = await browser.get(reset);
    expect(langOf(form)).toBe('de');
    await browser.submit(reset, form, { username });
    const received = await mail.nextMail(`${username}@example.com`);
    const link = /(https?:\/\/\S+\/reset\?\S+)/.exec(received.text)?.[1];
    expect(new URL(link!).searchParams.get('ui_locales')).toBe('de');

    const elsewhere = new TestBrowser(t.app, BASE_URL);
    elsewhere.headers['accept-language'] = 'fr';
    const opened = await elsewhere.get(link!);
    expect(opened.statusCode).toBe(200);
    expect(langOf(opened)).toBe('de');
  });
});

describe('scope descriptions per language', () => {
  it('the admin API keeps them beside description, and the consent page shows the person\u2019s, else description', async () => {
    const realm = await freshRealm(t);
    const scopeUrl = `/realms/${realm}/scopes/invoices`;
    const put = await t.admin.request('PUT', scopeUrl, { description: 'Read your invoices', descriptions: { de: 'Ihre Rechnungen lesen', en: 'Read your invoices' } });
    expect(put.statusCode, put.body).toBe(201);
    expect(put.json()).toEqual({ name: 'invoices', description: 'Read your invoices', descriptions: { de: 'Ihre Rechnungen lesen', en: 'Read your invoices' } });
    // A PUT without descriptions keeps them, as one without claims keeps those.
    const kept = await t.admin.request('PUT', scopeUrl, { description: 'Read invoices' });
    expect(kept.json().descriptions).toEqual({ de: 'Ihre Rechnungen lesen', en: 'Read your invoices' });

    const { client_id: clientId } = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid invoices',
    });
    const user = await createUser(t.admin, realm, unique('cy'));
    for (const [locale, shown] of [['de', 'Ihre Rechnungen lesen'], ['fr', 'Read invoices']] as const) {
      const { browser, url, page } = await signInPage(realm, clientId, { ui_locales: locale, scope: 'openid invoices' });
      const consent = await browser.get(location(await browser.submit(url, page, { username: user.username, password: user.password })));
      expect(langOf(consent)).toBe(locale);
      expect(consent.body).toContain(`<li><strong>${shown}</strong> <span class="scope-id">invoices</span></li>`);
    }

    const exported = await t.admin.request('GET', `/realms/${realm}/export`);
    expect(exported.json().scopes.find((scope: { name: string }) => scope.name === 'invoices').descriptions).toEqual({ de: 'Ihre Rechnungen lesen', en: 'Read your invoices' });
  });

  it('refuses a language the pages do not ship in, or a text too long, with a 400 that changes nothing', async () => {
    const realm = await freshRealm(t);
    const scopeUrl = `/realms/${realm}/scopes/invoices`;
    await t.admin.request('PUT', scopeUrl, { description: 'Read invoices', descriptions: { de: 'Rechnungen lesen' } });
    for (const descriptions of [{ es: 'Leer facturas' }, { de: 'x'.repeat(1001) }, { de: 42 }, 'Rechnungen']) {
      const refused = await t.admin.request('PUT', scopeUrl, { description: 'Changed', descriptions });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().error).toBe('invalid_request');
    }
    const scope = await t.admin.request('GET', scopeUrl);
    expect(scope.json()).toEqual({ name: 'invoices', description: 'Read invoices', descriptions: { de: 'Rechnungen lesen' } });
  });
});

describe('resource descriptions per language', () => {
  it('the consent page calls a resource by the person\u2019s language, else by its name; null clears them', async () => {
    const realm = await freshRealm(t);
    const identifier = 'https://api.example/orders';
    const put = await t.admin.request('PUT', `/realms/${realm}/resources`, { identifier, name: 'Orders API', descriptions: { de: 'Ihre Bestellungen' } });
    expect(put.statusCode, put.body).toBe(201);
    expect(put.json()).toEqual({ identifier, name: 'Orders API', descriptions: { de: 'Ihre Bestellungen' } });
    const refused = await t.admin.request('PUT', `/realms/${realm}/resources`, { identifier, descriptions: { it: 'Ordini' } });
    expect(refused.statusCode).toBe(400);

    const { client_id: clientId } = await t.admin.createClient(realm, {
      client_type: 'public',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      scope: 'openid profile',
    });
    const user = await createUser(t.admin, realm, unique('dy'));
    for (const [locale, shown] of [['de', 'Ihre Bestellungen'], ['fr', 'Orders API']] as const) {
      const { browser, url, page } = await signInPage(realm, clientId, { ui_locales: locale, scope: 'openid profile', resource: identifier });
      const consent = await browser.get(location(await browser.submit(url, page, { username: user.username, password: user.password })));
      expect(consent.body).toContain(`<ul class="scopes resources"><li><strong>${shown}</strong></li></ul>`);
    }

    const cleared = await t.admin.request('PUT', `/realms/${realm}/resources`, { identifier, descriptions: null });
    expect(cleared.json()).toEqual({ identifier, name: 'Orders API' });
  });
});
